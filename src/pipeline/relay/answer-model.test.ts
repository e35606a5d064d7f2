import { describe, expect, it } from 'vitest';
import { renameFirstModel, renamesAnswer, StreamModelRename } from './answer-model.js';

const ev = (data: unknown, type?: string) => `${type ? `event: ${type}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

describe('the model a passthrough answer names', () => {
  it('is renamed only when the request went upstream under another name', () => {
    expect(renamesAnswer('claude-sonnet', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(true);
    expect(renamesAnswer('m', 'm')).toBe(false);
    expect(renamesAnswer(undefined, 'm')).toBe(false);
  });

  it("renames message_start's model, whatever name the answer used, and nothing after it", () => {
    const r = new StreamModelRename('claude-sonnet');
    // Bedrock answers with the model behind its id, not the id it was called with.
    const start = ev({ type: 'message_start', message: { id: 'msg_1', model: 'claude-sonnet-4-5-20250929', content: [] } }, 'message_start');
    const later = ev({ type: 'content_block_delta', delta: { type: 'input_json_delta', partial_json: '{"model":"claude-sonnet-4-5-20250929"}' } });
    expect(r.push(Buffer.from('event: ping\ndata: {"type":"ping"}\n\n')).toString()).toBe('event: ping\ndata: {"type":"ping"}\n\n');
    expect(JSON.parse(r.push(Buffer.from(start)).toString().split('data: ')[1]!).message.model).toBe('claude-sonnet');
    expect(r.push(Buffer.from(later)).toString()).toBe(later);
  });

  it("renames a whole answer's own model (first), not a tool's input", () => {
    const body = Buffer.from(JSON.stringify({ model: 'claude-sonnet-4-5-20250929', id: 'msg_1', content: [{ type: 'tool_use', input: { model: 'x' } }] }));
    const out = JSON.parse(renameFirstModel(body, 'claude-sonnet').out.toString()) as { model: string; content: [{ input: { model: string } }] };
    expect(out.model).toBe('claude-sonnet');
    expect(out.content[0].input.model).toBe('x');
  });

  it('leaves bytes without a model, or with an escaped one, as they came', () => {
    for (const text of ['not json', '{"id":1}', '{"model":"claude\\u002dx"}']) {
      const bytes = Buffer.from(text);
      expect(renameFirstModel(bytes, 'claude-sonnet').out).toBe(bytes);
    }
  });
});
