import { describe, expect, it } from 'vitest';
import { assertNever } from '../../assert-never.js';
import { alignArrays, diffBodies, formatPath, type Change } from './diff.js';
import { expectLinear, GROWTH } from '../../../test/helpers/linear-time.js';

/** Changes as short strings, for readable expectations. */
function show(changes: readonly Change[]): string[] {
  return changes.map((c) => {
    const from = c.from ? formatPath(c.from) : '';
    const to = c.to ? formatPath(c.to) : '';
    switch (c.kind) {
      case 'removed':
        return `- ${from}${c.partial ? ' (partial)' : ''}`;
      case 'added':
        return `+ ${to}${c.receives ? ` (receives ${c.receives})` : ''}`;
      case 'changed':
        return `~ ${from}${from === to ? '' : ` ~ ${to}`}: ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}`;
      case 'moved':
        return `> ${from} → ${to}${c.partial ? ' (partial)' : ''}`;
      default:
        return assertNever(c.kind);
    }
  });
}

describe('diffBodies', () => {
  it('finds nothing between equal bodies, whatever their key order', () => {
    expect(diffBodies({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 }).changes).toEqual([]);
  });

  it('reports a Messages → Chat translation as renames, moves into new structures, changes and defaults', () => {
    const client = {
      model: 'claude-sonnet',
      max_tokens: 1024,
      system: 'You are terse.',
      stream: true,
      tools: [{ name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: 'Checking.' },
      ],
      thinking: { type: 'enabled', budget_tokens: 4096 },
    };
    const upstream = {
      model: 'gpt-upstream',
      max_completion_tokens: 1024,
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: 'Checking.' },
      ],
      reasoning_effort: 'medium',
    };
    expect(show(diffBodies(client, upstream).changes)).toEqual([
      '> max_tokens → max_completion_tokens',
      '> system → messages[0].content',
      '> tools[0].name → tools[0].function.name',
      '> tools[0].description → tools[0].function.description',
      '> tools[0].input_schema → tools[0].function.parameters',
      '- thinking',
      '~ model: "claude-sonnet" → "gpt-upstream"',
      '+ tools[0].type',
      '+ tools[0].function (receives 3)',
      '+ messages[0] (receives 1)',
      '+ stream_options',
      '+ reasoning_effort',
    ]);
  });

  it('aligns arrays on equal elements, so an insertion does not make every later element changed', () => {
    const a = { input: [{ t: 1 }, { t: 2 }, { t: 3 }] };
    const b = { input: [{ t: 1 }, { t: 'new' }, { t: 2 }, { t: 3 }] };
    expect(show(diffBodies(a, b).changes)).toEqual(['+ input[1]']);
    expect(show(diffBodies(b, a).changes)).toEqual(['- input[1]']);
  });

  it('compares the elements left between matches pairwise, with their own paths on each side', () => {
    const a = { m: ['same', { role: 'user', content: 'x' }] };
    const b = { m: ['first', 'same', { role: 'user', content: 'y' }] };
    expect(show(diffBodies(a, b).changes)).toEqual(['~ m[1].content ~ m[2].content: "x" → "y"', '+ m[0]']);
  });

  it('keeps short values and numbers from counting as moves between unrelated places', () => {
    // `n: 1` and `deep.other: 1` are equal but far apart: a drop and an addition, not a move.
    expect(show(diffBodies({ n: 1, keep: { x: 'a' } }, { keep: { x: 'a', other: 1 } }).changes)).toEqual(['- n', '+ keep.other']);
    // Between siblings the same number is a rename.
    expect(show(diffBodies({ n: 1 }, { m: 1 }).changes)).toEqual(['> n → m']);
  });

  it('finds parts of a dropped wrapper that moved elsewhere', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    const client = { text: { format: { type: 'json_schema', name: 'reply', schema, strict: true } } };
    const upstream = { response_format: { type: 'json_schema', json_schema: { name: 'reply', schema, strict: true } } };
    // `strict: true` is a boolean far from where it landed: not a move, dropped with the wrapper.
    expect(show(diffBodies(client, upstream).changes)).toEqual([
      '> text.format.type → response_format.type (partial)',
      '> text.format.name → response_format.json_schema.name (partial)',
      '> text.format.schema → response_format.json_schema.schema (partial)',
      '- text (partial)',
      '+ response_format (receives 3)',
    ]);
  });

  it('moves a value to one place only', () => {
    const changes = diffBodies({ a: 'shared text' }, { b: 'shared text', c: 'shared text' }).changes;
    expect(show(changes)).toEqual(['> a → b', '+ c']);
  });

  it('stops at the limit and counts what it left out', () => {
    const a = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
    const diff = diffBodies(a, {}, { limit: 10 });
    expect(diff.changes).toHaveLength(10);
    expect(diff.omitted).toBe(20);
  });

  it('handles a type change at the root and non-JSON-object bodies', () => {
    expect(show(diffBodies('text', { a: 1 }).changes)).toEqual(['~ (body): "text" → {"a":1}']);
    expect(diffBodies(null, null).changes).toEqual([]);
  });
});

describe('alignArrays', () => {
  it('pairs the common prefix, suffix and a longest common subsequence in order', () => {
    expect(alignArrays(['a', 'b', 'c', 'd'], ['a', 'x', 'c', 'd'])).toEqual([
      [0, 0],
      [2, 2],
      [3, 3],
    ]);
    expect(alignArrays(['p', 'q', 'r'], ['q', 'r', 'p'])).toEqual([
      [1, 0],
      [2, 1],
    ]);
    expect(alignArrays([], ['a'])).toEqual([]);
  });
});

describe('formatPath', () => {
  it('writes paths as code would', () => {
    expect(formatPath([])).toBe('(body)');
    expect(formatPath(['messages', 0, 'content'])).toBe('messages[0].content');
    expect(formatPath(['headers', 'x-api-key'])).toBe('headers["x-api-key"]');
    expect(formatPath([3])).toBe('[3]');
  });
});

describe('diffBodies on named elements', () => {
  it('compares tools by name, so a flattened namespace is dropped and its tools added, not paired with strangers', () => {
    const schema = { type: 'object', properties: { path: { type: 'string' } } };
    const client = {
      tools: [
        { type: 'function', name: 'exec', parameters: schema },
        { type: 'namespace', name: 'mcp', tools: [{ type: 'function', name: 'read', parameters: { ...schema, title: 'read' } }] },
        { type: 'function', name: 'goal', parameters: { ...schema, title: 'goal' } },
        { type: 'web_search' },
      ],
    };
    const upstream = {
      tools: [
        { name: 'exec', input_schema: schema },
        { name: 'mcp__read', input_schema: { ...schema, title: 'read' } },
        { name: 'goal', input_schema: { ...schema, title: 'goal' } },
      ],
    };
    expect(show(diffBodies(client, upstream).changes)).toEqual([
      '> tools[0].parameters → tools[0].input_schema',
      '> tools[2].parameters → tools[2].input_schema',
      '> tools[1].tools[0].parameters → tools[1].input_schema (partial)',
      '- tools[0].type',
      '- tools[1] (partial)',
      '- tools[2].type',
      '- tools[3]',
      '+ tools[1] (receives 1)',
    ]);
  });

  it('pairs a call with its result by id across protocols, whatever moved around them', () => {
    const client = { input: [{ type: 'function_call', call_id: 'c1', name: 'exec', arguments: '{}' }, { type: 'function_call_output', call_id: 'c1', output: 'ok' }] };
    const upstream = { input: [{ type: 'reasoning', summary: [] }, { type: 'function_call_output', call_id: 'c1', output: 'ok!' }] };
    expect(show(diffBodies(client, upstream).changes)).toEqual(['- input[0]', '~ input[1].output: "ok" → "ok!"', '+ input[0]']);
  });
});

describe('diffBodies on hostile sizes', () => {
  const schema = () => ({ type: 'object', properties: { a: { type: 'string' } } });
  const messagesTools = (n: number) => ({ model: 'm', tools: Array.from({ length: n }, (_, i) => ({ name: `t${i}`, input_schema: schema() })) });
  const chatTools = (n: number) => ({ model: 'm', tools: Array.from({ length: n }, (_, i) => ({ type: 'function', function: { name: `t${i}`, parameters: schema() } })) });

  // Sizes at which a quadratic step takes seconds: the test runs a part of each, then the whole.
  it.each<[string, number, (n: number) => readonly [unknown, unknown]]>([
    ['20,000 tools with the same schema, translated', 20_000, (n: number) => [messagesTools(n), chatTools(n)]],
    ['100,000 top-level keys dropped', 100_000, (n: number) => [Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])), {}]],
    [
      '100,000 array elements each changed',
      100_000,
      (n: number) => [{ a: Array.from({ length: n }, (_, i) => i) }, { a: Array.from({ length: n }, (_, i) => -i - 1) }],
    ],
  ])('%s: finishes in linear or capped time, within its change limit', (_, size, make) => {
    const diff = expectLinear(make, ([client, upstream]) => diffBodies(client, upstream), size / GROWTH);
    expect(diff.changes.length).toBeLessThanOrEqual(1000);
    expect(diff.changes.length + diff.omitted).toBeGreaterThan(1000);
  });

  it('still finds the moves of a small translated body', () => {
    const diff = diffBodies(messagesTools(3), chatTools(3));
    expect(diff.changes.filter((c) => c.kind === 'moved').map((c) => `${formatPath(c.from!)} -> ${formatPath(c.to!)}`)).toEqual([
      'tools[0].input_schema -> tools[0].function.parameters',
      'tools[1].input_schema -> tools[1].function.parameters',
      'tools[2].input_schema -> tools[2].function.parameters',
    ]);
  });
});
