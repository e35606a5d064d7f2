import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitError } from '../errors.js';
import { parseRecording, readRecording, selectExchanges } from './recording.js';

const line = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({ v: 1, id: 'req_1', method: 'POST', path: '/v1/messages', request: { headers: {}, body: { bytes: 0 } }, ...fields });

describe('parseRecording', () => {
  it('reads one exchange per line, skipping blank lines, and keeps line numbers', () => {
    const text = `${line({ id: 'a' })}\n\n${line({ id: 'b' })}\n`;
    expect(parseRecording(text, 'r.jsonl').map((r) => [r.line, r.exchange.id])).toEqual([
      [1, 'a'],
      [3, 'b'],
    ]);
  });

  it.each([
    ['a line that is not JSON', `${line()}\n{"id": `, /^r\.jsonl:2: not JSON/],
    ['a JSON array', '[1, 2]', /^r\.jsonl:1: not a recorded exchange: not a JSON object\.$/],
    ['no id', JSON.stringify({ method: 'GET', path: '/' }), /r\.jsonl:1: .*no "id"/],
    ['no method', JSON.stringify({ id: 'x', path: '/' }), /no "method" or "path"/],
    ['a request without headers', line({ request: { body: { bytes: 0 } } }), /"request" is not \{ headers, body \}/],
    ['a response without a body', line({ response: { status: 200 } }), /"response" has no "body"/],
  ])('refuses %s, naming the line', (_name, text, message) => {
    expect(() => parseRecording(text, 'r.jsonl')).toThrow(message);
  });

  it('accepts a summary-only line (no request captured)', () => {
    expect(parseRecording(JSON.stringify({ id: 'x', method: 'GET', path: '/health', status: 200 }), 'f')).toHaveLength(1);
  });
});

describe('readRecording', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mgw-recording-'));

  it.each([
    ['a missing file', join(dir, 'nope.jsonl'), 'Cannot read recording shown.jsonl: no such file.'],
    ['a folder', (mkdirSync(join(dir, 'sub')), join(dir, 'sub')), 'Cannot read recording shown.jsonl: it is a folder.'],
  ])('says so for %s, with exit code 1', async (_name, file, message) => {
    const err = await readRecording(file, 'shown.jsonl').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExitError);
    expect(err).toMatchObject({ message, exitCode: 1 });
  });

  it('names the file as given in line errors', async () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, `${line()}\nnot json\n`);
    await expect(readRecording(file, 'bad.jsonl')).rejects.toThrow(/^bad\.jsonl:2: not JSON/);
  });
});

describe('selectExchanges', () => {
  const all = parseRecording([line({ id: 'a' }), line({ id: 'b' })].join('\n'), 'f');

  it('takes all without an id, and the one with an id', () => {
    expect(selectExchanges(all, 'f').map((r) => r.exchange.id)).toEqual(['a', 'b']);
    expect(selectExchanges(all, 'f', 'b').map((r) => r.exchange.id)).toEqual(['b']);
  });

  it('refuses an unknown id', () => {
    expect(() => selectExchanges(all, 'f.jsonl', 'zzz')).toThrow('No exchange with id zzz in f.jsonl (2 recorded).');
  });
});
