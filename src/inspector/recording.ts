/**
 * Reads a `--log-file` recording into an inspector, line by line, so a large file is never
 * held whole. A line that is not an exchange costs that line only (see `log/read-recording.ts`):
 * a recording cut mid-line by a crash, or with a damaged line, still opens with the rest.
 */
import type { ExchangeJson } from '../log/exchange-json.js';
import { readRecordingFile, type RecordingRead } from '../log/read-recording.js';

export async function readRecording(
  file: string,
  add: (json: ExchangeJson, bytes: number) => void,
  maxLineBytes?: number,
): Promise<RecordingRead> {
  // Parsed JSON takes about twice its text in memory.
  return readRecordingFile(file, (json, _line, bytes) => add(json, bytes * 2), maxLineBytes);
}
