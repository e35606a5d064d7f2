/**
 * The log line says why in words: what translation dropped (named, then counted), failed attempts
 * without the gateway's error codes, a long error on a line of its own, durations coloured by how
 * long the client waited, and a stream marked even before its first byte's time is known.
 */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { formatDropped, formatLine } from './format.js';
import { newRecord, type RequestRecord } from './record.js';

const plain = new Chalk({ level: 0 });
const coloured = new Chalk({ level: 1 });

function record(fill: Partial<RequestRecord>): RequestRecord {
  return Object.assign(newRecord('req_1', 0, 0, 'POST', '/v1/messages'), { status: 200, model: 'm', provider: 'p', durationMs: 12 }, fill);
}

describe('what translation dropped', () => {
  it.each([
    [undefined, undefined],
    [[], undefined],
    [['metadata'], 'dropped metadata'],
    [['metadata', 'cache_control', 'metadata'], 'dropped metadata +1'],
    [['x'.repeat(80), 'y'], `dropped ${'x'.repeat(47)}… +1`],
    [['\x1b[2Jwiped'], 'dropped \\x1b[2Jwiped'],
  ])('%j → %s', (warnings, text) => {
    expect(formatDropped(warnings)).toBe(text);
  });
});

describe('the log line', () => {
  it.each([
    ['upstream_unavailable', 'unreachable'],
    ['timeout', 'timed out'],
    ['upstream_error', 'failed'],
    ['something_new', 'failed'],
  ])('an attempt that failed with %s reads "%s"', (error, words) => {
    const line = formatLine(record({ tries: [{ model: 'a', provider: 'p', error }, { model: 'a', provider: 'p', error }], servedBy: 'b' }), plain);
    expect(line).toContain(`via a ${words}×2 → b`);
    expect(line).not.toContain(error);
  });

  it('keeps a short error on the line and puts a long one under it', () => {
    expect(formatLine(record({ status: 502, error: 'Provider p is unreachable.' }), plain)).toMatch(/ 12ms ✗ Provider p is unreachable\.$/);
    const long = `Provider p answered 400: ${'a field the upstream refused, '.repeat(5)}`;
    const [line, under, ...rest] = formatLine(record({ status: 400, error: long }), plain).split('\n');
    expect(line).not.toContain('✗');
    expect(under).toBe(`    ✗ ${long}`);
    expect(rest).toEqual([]);
  });

  it.each([
    [120, '\x1b[32m'],
    [4_000, '\x1b[33m'],
    [45_000, '\x1b[31m'],
  ])('a duration of %i ms is coloured %j', (ms, code) => {
    expect(formatLine(record({ durationMs: ms }), coloured)).toContain(`${code}${ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(2)}s`}`);
  });

  it('marks a stream: by its time to first byte, or as a stream when no byte went out', () => {
    expect(formatLine(record({ stream: true, ttfbMs: 8 }), plain)).toContain(' ttfb 8ms');
    expect(formatLine(record({ stream: true, status: 502, error: 'x' }), plain)).toContain(' 12ms stream ✗ x');
  });
});
