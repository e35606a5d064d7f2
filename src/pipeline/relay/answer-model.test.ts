import { describe, expect, it } from 'vitest';
import { renameInWhole, renamesAnswer, StreamModelRename } from './answer-model.js';

const ev = (data: unknown, type?: string) => `${type ? `event: ${type}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
const rename = (...chunks: string[]) => {
  const r = new StreamModelRename('claude-sonnet');
  return chunks.map((c) => r.push(Buffer.from(c)).toString());
};

describe('the model a passthrough answer names', () => {
  it('is renamed only when the request went upstream under another name', () => {
    expect(renamesAnswer('claude-sonnet', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(true);
    expect(renamesAnswer('m', 'm')).toBe(false);
    expect(renamesAnswer(undefined, 'm')).toBe(false);
  });

  it.each([
    // Bedrock answers with the model behind its id, not the id it was called with.
    ['message_start', [ev({ type: 'message_start', message: { id: 'msg_1', model: 'claude-sonnet-4-5-20250929' } }, 'message_start')], 1],
    ['every Chat chunk, across writes', [ev({ id: 'c', model: 'gpt-x-2026' }) + ev({ id: 'c', model: 'gpt-x-2026' }), ev({ id: 'c', model: 'gpt-x-2026' })], 3],
  ])('renames %s, whatever name the answer used', (_name, chunks, count) => {
    const out = rename(...chunks).join('');
    expect(out.match(/"model":"claude-sonnet"/g)).toHaveLength(count);
    expect(out).not.toMatch(/20250929|2026/);
  });

  it('leaves the same bytes inside a string (text, tool input) and other names alone', () => {
    const first = ev({ type: 'message_start', message: { model: 'claude-sonnet-4-5-20250929' } });
    const later = ev({ delta: { partial_json: '{"model":"claude-sonnet-4-5-20250929"}' } }) + ev({ metadata: { model: 'other' } });
    const [, out] = rename(first, later);
    expect(out).toBe(later);
  });

  it('leaves a stream that already names the asked model, or names it escaped, as it came', () => {
    for (const first of [ev({ model: 'claude-sonnet' }), 'data: {"model":"claude\\u002dx"}\n\n']) {
      const [a, b] = rename(first, ev({ model: 'claude-sonnet-4-5' }));
      expect(a).toBe(first);
      expect(b).toBe(ev({ model: 'claude-sonnet-4-5' }));
    }
  });

  it("renames a whole answer's own model only, and keeps a body that is not a JSON object", () => {
    const body = Buffer.from(JSON.stringify({ id: 'msg_1', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'tool_use', input: { model: 'claude-sonnet-4-5-20250929' } }] }));
    const out = JSON.parse(renameInWhole(body, 'claude-sonnet').toString()) as { model: string; content: [{ input: { model: string } }] };
    expect(out.model).toBe('claude-sonnet');
    expect(out.content[0].input.model).toBe('claude-sonnet-4-5-20250929');
    for (const other of ['not json', '[1]', '{"id":1}']) expect(renameInWhole(Buffer.from(other), 'claude-sonnet').toString()).toBe(other);
  });
});
