/**
 * Reading a `--log-file` recording for replay: the exchanges with their line numbers, and
 * the lines that were skipped (see `log/read-recording.ts`), which replay reports.
 */
import { ExitError } from '../errors.js';
import type { ExchangeJson } from '../log/exchange-json.js';
import { readRecordingFile, type RecordingRead, unreadableRecording } from '../log/read-recording.js';

export interface RecordedExchange {
  /** 1-based line in the file, for messages. */
  readonly line: number;
  readonly exchange: ExchangeJson;
}

export interface Recording {
  readonly exchanges: readonly RecordedExchange[];
  /** What was read: the counts and the skipped lines. */
  readonly read: RecordingRead;
}

/** Reads `file`; messages call it `shownAs` (the name as the user gave it). */
export async function readRecording(file: string, shownAs = file, maxLineBytes?: number): Promise<Recording> {
  const exchanges: RecordedExchange[] = [];
  try {
    const read = await readRecordingFile(file, (exchange, line) => exchanges.push({ line, exchange }), maxLineBytes);
    return { exchanges, read };
  } catch (err) {
    throw new ExitError(unreadableRecording(shownAs, err), 1);
  }
}

/** The exchanges to replay: all of them, or the one with `id`. */
export function selectExchanges(all: readonly RecordedExchange[], file: string, id?: string): RecordedExchange[] {
  if (id === undefined) return [...all];
  const found = all.filter((r) => r.exchange.id === id);
  if (found.length === 0) throw new ExitError(`No exchange with id ${id} in ${file} (${all.length} recorded).`, 1);
  return found;
}
