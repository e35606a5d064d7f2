import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { estimateInputTokens, jsonLength } from './estimate-tokens.js';

const FIXTURES = new URL('../../../test/fixtures/clients/', import.meta.url);
const bodies = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .map((f) => [f, (JSON.parse(readFileSync(new URL(f, FIXTURES), 'utf8')) as { body: unknown }).body] as const);

describe('jsonLength', () => {
  it.each([
    ['empty object', {}],
    ['empty array', []],
    ['scalars', [1, -2.5, true, false, null, 'abc', '']],
    ['nested', { a: { b: [1, { c: 'd' }], e: [] }, f: null, gh: 'ij' }],
    ['undefined members are left out', { a: undefined, b: 1 }],
    ['a tool definition', { name: 'Read', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }],
  ])('is the length of JSON.stringify for %s', (_name, value) => {
    expect(jsonLength(value)).toBe(JSON.stringify(value).length);
  });

  it.each(bodies)('is within 3%% of JSON.stringify on %s (escapes are not counted)', (_file, body) => {
    const exact = JSON.stringify(body).length;
    expect(jsonLength(body)).toBeLessThanOrEqual(exact);
    expect(jsonLength(body)).toBeGreaterThan(exact * 0.97);
  });
});

describe('estimateInputTokens', () => {
  it("counts Claude Code's /context request at about four characters a token", () => {
    const body = bodies.find(([f]) => f.startsWith('claude-code-2.1.330-count-tokens'))![1] as Record<string, unknown>;
    const chars = JSON.stringify(body.tools).length;
    const estimate = estimateInputTokens(body);
    expect(estimate).toBeGreaterThan(chars / 4 * 0.95);
    expect(estimate).toBeLessThan(JSON.stringify(body).length / 4 * 1.05);
  });

  it('counts an image at a fixed ~1,600 tokens, not its base64 length', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(400_000) } };
    expect(estimateInputTokens({ messages: [{ role: 'user', content: [image] }] })).toBe(1601);
  });
});
