/**
 * Reading a `--log-file` recording: one exchange (see `log/exchange-json.ts`) per
 * line. Lines are checked only for what replay relies on, and a line that is not
 * an exchange is reported by number rather than skipped, so a damaged file is
 * noticed.
 */
import { readFile } from 'node:fs/promises';
import { ExitError } from '../errors.js';
import type { ExchangeJson } from '../log/exchange-json.js';

export interface RecordedExchange {
  /** 1-based line in the file, for messages. */
  readonly line: number;
  readonly exchange: ExchangeJson;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why a parsed line is not a recorded exchange, or undefined when it is one. */
function problemWith(value: unknown): string | undefined {
  if (!isObject(value)) return 'not a JSON object';
  if (typeof value.id !== 'string') return 'no "id"';
  if (typeof value.method !== 'string' || typeof value.path !== 'string') return 'no "method" or "path"';
  const request = value.request;
  if (request !== undefined && (!isObject(request) || !isObject(request.headers) || !isObject(request.body))) {
    return '"request" is not { headers, body }';
  }
  const response = value.response;
  if (response !== undefined && (!isObject(response) || !isObject(response.body))) return '"response" has no "body"';
  return undefined;
}

/** Parses the text of a recording; `file` names it in errors. Blank lines are allowed. */
export function parseRecording(text: string, file: string): RecordedExchange[] {
  const out: RecordedExchange[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch (err) {
      throw new ExitError(`${file}:${i + 1}: not JSON (${(err as Error).message}).`, 1);
    }
    const problem = problemWith(value);
    if (problem) throw new ExitError(`${file}:${i + 1}: not a recorded exchange: ${problem}.`, 1);
    out.push({ line: i + 1, exchange: value as unknown as ExchangeJson });
  });
  return out;
}

/** Reads `file`; messages call it `shownAs` (the name as the user gave it). */
export async function readRecording(file: string, shownAs = file): Promise<RecordedExchange[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (err as Error).message;
    throw new ExitError(`Cannot read recording ${shownAs}: ${why}.`, 1);
  }
  return parseRecording(text, shownAs);
}

/** The exchanges to replay: all of them, or the one with `id`. */
export function selectExchanges(all: readonly RecordedExchange[], file: string, id?: string): RecordedExchange[] {
  if (id === undefined) return [...all];
  const found = all.filter((r) => r.exchange.id === id);
  if (found.length === 0) throw new ExitError(`No exchange with id ${id} in ${file} (${all.length} recorded).`, 1);
  return found;
}
