import { readdirSync, readFileSync } from 'node:fs';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
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

/** Reads a file of the repository: real prose and real code, for requests larger than the fixtures' own. */
const repoText = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

/**
 * What the o200k tokenizer makes of a request's content: each text and each JSON value (tool
 * definitions, tool call arguments) tokenized as it is, and the 3 tokens OpenAI's chat format
 * adds per message. Images are left out (both sides count them the same fixed way).
 */
function o200k(body: Record<string, unknown>): number {
  let n = 0;
  const content = (c: unknown): void => {
    if (typeof c === 'string') n += countTokens(c);
    else if (Array.isArray(c)) {
      for (const b of c as Record<string, unknown>[]) {
        if (b.type === 'text') n += countTokens(b.text as string);
        else if (b.type === 'tool_use') n += countTokens(b.name as string) + countTokens(JSON.stringify(b.input));
        else if (b.type === 'tool_result') content(b.content);
        else n += countTokens(JSON.stringify(b));
      }
    }
  };
  content(body.system);
  for (const m of (body.messages ?? []) as { content: unknown }[]) {
    content(m.content);
    n += 3;
  }
  for (const tool of (body.tools ?? []) as unknown[]) n += countTokens(JSON.stringify(tool));
  return n;
}

/** The Messages requests among the client fixtures, and the tool-result one carrying a long file read (code, prose). */
const messageBodies = bodies.filter(([f]) => /messages|count-tokens/.test(f)) as (readonly [string, Record<string, unknown>])[];
const toolResult = messageBodies.find(([f]) => f.includes('messages-tool-result'))![1];
const withFileRead = (text: string): Record<string, unknown> => {
  const messages = structuredClone(toolResult.messages) as { content: unknown }[];
  messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_read', content: text }] } as never);
  return { ...toolResult, messages };
};
const calibration: (readonly [string, Record<string, unknown>])[] = [
  ...messageBodies,
  ['tool result with a TypeScript file', withFileRead(repoText('src/pipeline/handle.ts'))],
  ['tool result with the README', withFileRead(repoText('README.md'))],
  ['tool result with a JSON fixture', withFileRead(repoText('test/fixtures/clients/codex-0.169.0-responses-first-turn.json'))],
];

describe('estimateInputTokens', () => {
  // The band: at least the o200k count, at most a quarter above it (a small request: within 5 tokens).
  it.each(calibration)('stays within the band of the o200k count on %s', (_name, body) => {
    const reference = o200k(body);
    const estimate = estimateInputTokens(body);
    if (reference < 100) {
      expect(Math.abs(estimate - reference)).toBeLessThanOrEqual(5);
      return;
    }
    expect(estimate / reference).toBeGreaterThanOrEqual(1);
    expect(estimate / reference).toBeLessThanOrEqual(1.25);
  });

  it('counts an image at a fixed ~1,600 tokens, not its base64 length', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(400_000) } };
    // The image, and the message's own 3.
    expect(estimateInputTokens({ messages: [{ role: 'user', content: [image] }] })).toBe(1603);
  });
});
