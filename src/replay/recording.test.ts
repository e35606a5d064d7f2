import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitError } from '../errors.js';
import { readRecording, selectExchanges, type RecordedExchange } from './recording.js';

const dir = mkdtempSync(join(tmpdir(), 'mgw-recording-'));
/** A folder where a recording file is expected. */
const folder = join(dir, 'sub');
mkdirSync(folder);
const line = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({ v: 1, id: 'req_1', time: '2026-01-01T00:00:00.000Z', method: 'POST', path: '/v1/messages', request: { headers: {}, body: { bytes: 0 } }, ...fields });

describe('readRecording', () => {
  it('reads one exchange per line with its line number, and skips and keeps the lines that are not exchanges', async () => {
    const file = join(dir, 'mixed.jsonl');
    writeFileSync(file, [line({ id: 'a' }), '', 'not json', line({ id: 'b', status: 'ok' }), line({ id: 'c' }), '{"id": '].join('\n'));
    const { exchanges, read } = await readRecording(file, 'mixed.jsonl');
    expect(exchanges.map((r) => [r.line, r.exchange.id])).toEqual([
      [1, 'a'],
      [5, 'c'],
    ]);
    expect(read).toEqual({
      exchanges: 2,
      badCount: 3,
      bad: [
        { line: 3, problem: 'not JSON' },
        { line: 4, problem: '"status": expected number, received string' },
        { line: 6, problem: 'not JSON (cut short, or damaged)' },
      ],
    });
  });

  it.each([
    ['a missing file', join(dir, 'nope.jsonl'), 'Cannot read the recording shown.jsonl: no such file.'],
    ['a folder', folder, 'Cannot read the recording shown.jsonl: it is a folder.'],
  ])('says so for %s, with exit code 1', async (_name, file, message) => {
    const err = await readRecording(file, 'shown.jsonl').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExitError);
    expect(err).toMatchObject({ message, exitCode: 1 });
  });
});

describe('selectExchanges', () => {
  const all: RecordedExchange[] = ['a', 'b'].map((id, i) => ({ line: i + 1, exchange: JSON.parse(line({ id })) }));

  it('takes all without an id, and the one with an id', () => {
    expect(selectExchanges(all, 'f').map((r) => r.exchange.id)).toEqual(['a', 'b']);
    expect(selectExchanges(all, 'f', 'b').map((r) => r.exchange.id)).toEqual(['b']);
  });

  it('refuses an unknown id', () => {
    expect(() => selectExchanges(all, 'f.jsonl', 'zzz')).toThrow('No exchange with id zzz in f.jsonl (2 recorded).');
  });
});
