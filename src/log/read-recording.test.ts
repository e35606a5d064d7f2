import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { ExchangeJson } from './exchange-json.js';
import { badLinesReport, readRecordingFile, UnreadableRecording, unreadableRecording } from './read-recording.js';

/**
 * A disk that fails mid-file cannot be made on demand: for the one test that needs it, the file
 * system's read stream hands over these bytes and then fails as such a disk does.
 */
const failing = vi.hoisted(() => ({ after: undefined as string | undefined }));
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  const createReadStream = ((...args: Parameters<typeof fs.createReadStream>) => {
    const text = failing.after;
    if (text === undefined) return fs.createReadStream(...args);
    return Readable.from(
      (async function* () {
        yield Buffer.from(text);
        throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
      })(),
    );
  }) as typeof fs.createReadStream;
  return { ...fs, createReadStream };
});

const dir = mkdtempSync(join(tmpdir(), 'mgw-read-recording-'));
let n = 0;
const file = (text: string | Buffer) => {
  const f = join(dir, `r${n++}.jsonl`);
  writeFileSync(f, text);
  return f;
};
const exchange = (id: string, fields: Record<string, unknown> = {}) =>
  JSON.stringify({ v: 1, id, time: '2026-01-01T00:00:00.000Z', method: 'POST', path: '/v1/messages', status: 200, ...fields });

async function read(f: string, maxLineBytes?: number) {
  const got: [string, number][] = [];
  const result = await readRecordingFile(f, (x: ExchangeJson, line) => got.push([x.id, line]), maxLineBytes);
  return { got, ...result };
}

describe('readRecordingFile', () => {
  it.each([
    ['a line that is not JSON', 'not json'],
    ['JSON of the wrong shape', '{"hello":"world"}'],
    ['an exchange missing fields', JSON.stringify({ id: 'x', method: 'GET' })],
    ['a status that is a string', exchange('bad', { status: 'two hundred' })],
    ['headers that are an array', exchange('bad', { request: { headers: ['x'], body: { bytes: 0 } } })],
    ['a line longer than the limit', exchange('huge', { pad: 'x'.repeat(5000) })],
  ])('keeps every good exchange around %s, and reports it by line number', async (_name, bad) => {
    const f = file([exchange('a'), '', bad, exchange('b'), ''].join('\n'));
    const r = await read(f, 4096);
    expect(r.got).toEqual([
      ['a', 1],
      ['b', 4],
    ]);
    expect(r.exchanges).toBe(2);
    expect(r.badCount).toBe(1);
    expect(r.bad.map((b) => b.line)).toEqual([3]);
  });

  it('reports a last line cut short (a crash mid-write), with no newline after it', async () => {
    const r = await read(file(`${exchange('a')}\n${exchange('b').slice(0, 30)}`));
    expect(r.got).toEqual([['a', 1]]);
    expect(r.bad).toEqual([{ line: 2, problem: 'not JSON (cut short, or damaged)' }]);
  });

  it('reads CRLF line ends, and lines split across read chunks with multi-byte text cut in two', async () => {
    // Past the stream's first 64 KiB chunk, which ends inside a 3-byte character.
    const lines = Array.from({ length: 40 }, (_, i) => exchange(`x${i}`, { model: `${i === 0 ? 'a' : ''}${'€'.repeat(1000 + i)}` }));
    const bytes = Buffer.from(lines.join('\r\n'));
    expect(bytes[64 * 1024]! & 0xc0).toBe(0x80);
    const r = await read(file(bytes));
    expect(r.badCount).toBe(0);
    expect(r.got.map(([id]) => id)).toEqual(lines.map((_, i) => `x${i}`));
  });

  it('drops a huge line as it streams, whatever comes after it', async () => {
    const huge = `{"id":"${'y'.repeat(300_000)}"}`;
    const r = await read(file([exchange('a'), huge, exchange('b'), huge].join('\n')), 100_000);
    expect(r.got.map(([id]) => id)).toEqual(['a', 'b']);
    expect(r.bad).toEqual([
      { line: 2, problem: expect.stringMatching(/^longer than .* MiB \(see --max-line\)$/) },
      { line: 4, problem: expect.stringMatching(/^longer than/) },
    ]);
  });

  it('counts every bad line, and the report lists the first ten', async () => {
    const f = file([exchange('a'), ...Array.from({ length: 12 }, () => 'nope')].join('\n'));
    const r = await read(f);
    expect(r.badCount).toBe(12);
    const report = badLinesReport('r.jsonl', r);
    expect(report[0]).toBe('r.jsonl: 12 lines skipped, not exchanges:');
    expect(report.slice(1, 3)).toEqual(['  line 2: not JSON', '  line 3: not JSON']);
    expect(report).toHaveLength(12);
    expect(report.at(-1)).toBe('  … and 2 more');
    expect(badLinesReport('r.jsonl', { exchanges: 1, badCount: 0, bad: [] })).toEqual([]);
  });

  it('rejects with the file system error, and no line, when the file cannot be opened', async () => {
    const err = await readRecordingFile(join(dir, 'missing.jsonl'), () => undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreadableRecording);
    expect(err).toMatchObject({ code: 'ENOENT', line: undefined });
  });

  it('rejects with the line the read stopped in when the file fails part way', async () => {
    failing.after = `${exchange('a')}\n${exchange('b')}\n{"id":`;
    try {
      const got: string[] = [];
      const err = await readRecordingFile('any.jsonl', (x) => got.push(x.id)).catch((e: unknown) => e);
      expect(got).toEqual(['a', 'b']);
      expect(err).toBeInstanceOf(UnreadableRecording);
      expect(err).toMatchObject({ code: 'EIO', line: 3 });
      expect(unreadableRecording('r.jsonl', err)).toBe('Cannot read the recording r.jsonl at line 3: EIO: i/o error, read.');
    } finally {
      failing.after = undefined;
    }
  });

  it('passes on what the caller throws as it is', async () => {
    const mine = new Error('mine');
    const err = await readRecordingFile(file(exchange('a')), () => {
      throw mine;
    }).catch((e: unknown) => e);
    expect(err).toBe(mine);
  });
});

describe('unreadableRecording', () => {
  const folder = join(dir, 'folder.jsonl');
  mkdirSync(folder);

  it.each([
    ['a missing file', join(dir, 'nope.jsonl'), 'Cannot read the recording shown.jsonl: no such file.'],
    ['a folder', folder, 'Cannot read the recording shown.jsonl: it is a folder.'],
  ])('names the file and why for %s', async (_name, path, message) => {
    const err = await readRecordingFile(path, () => undefined).catch((e: unknown) => e);
    expect(unreadableRecording('shown.jsonl', err)).toBe(message);
  });

  it('words any other error by its message', () => {
    expect(unreadableRecording('shown.jsonl', new Error('not a file'))).toBe('Cannot read the recording shown.jsonl: not a file.');
  });
});
