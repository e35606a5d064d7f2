import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { compareAnswers } from './compare.js';
import { eventRuns, formatComparison, formatHeading } from './format.js';

const plain = new Chalk({ level: 0 });

const message = (text: string, stop = 'end_turn') => ({
  bytes: 1,
  json: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text }], stop_reason: stop, usage: { input_tokens: 5, output_tokens: 2 } },
});

describe('eventRuns', () => {
  it.each([
    [[], ''],
    [['a'], 'a'],
    [['a', 'b', 'b', 'b', 'c', 'b'], 'a b ×3 c b'],
  ])('%j → %s', (types, text) => {
    expect(eventRuns(types)).toBe(text);
  });

  it('counts what it does not show', () => {
    const types = Array.from({ length: 50 }, (_, i) => `e${i}`);
    expect(eventRuns(types)).toMatch(/ e39 … 10 more$/);
  });
});

describe('formatComparison', () => {
  it('says "same" for what agrees, and shows usage side by side', () => {
    const cmp = compareAnswers('/v1/messages', { status: 200, body: message('Hi') }, { status: 200, body: { ...message('Hi'), json: { ...message('Hi').json, id: 'msg_2', usage: { input_tokens: 5, output_tokens: 3 } } } });
    expect(formatComparison(cmp, plain)).toBe(
      [
        '  status   200 → 200',
        '  text     same: "Hi"',
        '  stop     same: end',
        '  usage    in 5 → 5 · out 2 → 3',
        '  body     same (ids, timestamps and usage not compared)',
        '  ✓ same status',
        '',
      ].join('\n'),
    );
  });

  it('shows both values where they differ, the body differences, and the verdict', () => {
    const cmp = compareAnswers('/v1/messages', { status: 200, body: message('Hi') }, { status: 400, body: { bytes: 1, json: { type: 'error', error: { type: 'invalid_request_error', message: 'no' } } } });
    const text = formatComparison(cmp, plain);
    expect(text).toContain('  status   200 → 400\n');
    expect(text).toContain('  text     recorded: "Hi"\n           replayed: ""\n');
    expect(text).toContain('  error    recorded: none\n           replayed: invalid_request_error: no\n');
    expect(text).toMatch(/ {2}body {5}\d+ differences \(ids, timestamps and usage not compared\)\n/);
    expect(text).toContain('           ~ type: "message" → "error"\n');
    expect(text).toContain('           - content: [{"type":"text","text":"Hi"}]\n');
    expect(text.endsWith('  ✗ status 200 → 400\n')).toBe(true);
  });

  it('cuts long text', () => {
    const long = 'x'.repeat(500);
    const cmp = compareAnswers('/v1/messages', { status: 200, body: message(long) }, { status: 200, body: message(long) });
    expect(formatComparison(cmp, plain)).toMatch(/text {5}same: "x{199}… \(\+302 chars\)\n/);
  });
});

describe('formatHeading', () => {
  it('names the exchange, its model (and the override) and the line', () => {
    expect(formatHeading({ id: 'req_1', method: 'POST', path: '/v1/messages', model: 'a', stream: true, line: 3 }, plain, 'b')).toBe(
      'req_1  POST /v1/messages  a → b  stream  (line 3)\n',
    );
    expect(formatHeading({ id: 'req_2', method: 'GET', path: '/v1/models', line: 1 }, plain)).toBe('req_2  GET /v1/models  (line 1)\n');
  });
});
