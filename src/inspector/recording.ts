/**
 * Reads a `--log-file` recording (one ExchangeJson per line) into an inspector, line by
 * line, so a large file is never held whole. Lines that are not exchanges are counted,
 * not fatal: a recording cut mid-line by a crash still opens.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ExchangeJson } from '../log/exchange-json.js';

export interface RecordingStats {
  /** Exchanges read. */
  readonly exchanges: number;
  /** Lines that were not exchanges (blank lines aside). */
  readonly skipped: number;
}

function isExchange(value: unknown): value is ExchangeJson {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === 'string' && typeof v.time === 'string' && typeof v.method === 'string' && typeof v.path === 'string';
}

export async function readRecording(file: string, add: (json: ExchangeJson, bytes: number) => void): Promise<RecordingStats> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let exchanges = 0;
  let skipped = 0;
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    if (!isExchange(parsed)) {
      skipped++;
      continue;
    }
    exchanges++;
    // Parsed JSON takes about twice its text in memory.
    add(parsed, line.length * 2);
  }
  return { exchanges, skipped };
}
