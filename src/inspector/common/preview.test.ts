import { describe, expect, it } from 'vitest';
import { PREVIEW_CHARS, promptPreview } from './preview.js';

describe('the prompt preview', () => {
  it.each([
    ['chat, the last user text', 'chat', { messages: [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'a' }, { role: 'user', content: 'second' }] }, 'second'],
    ['chat, text parts', 'chat', { messages: [{ role: 'user', content: [{ type: 'text', text: 'a part' }] }] }, 'a part'],
    ['messages, past a turn of tool results', 'messages', { messages: [{ role: 'user', content: 'asked' }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'r' }] }] }, 'asked'],
    ['responses, an input string', 'responses', { input: 'just this' }, 'just this'],
    ['responses, input items', 'responses', { input: [{ role: 'user', content: [{ type: 'input_text', text: 'item text' }] }] }, 'item text'],
    ['gemini', 'gemini', { contents: [{ role: 'user', parts: [{ text: 'gemini text' }] }] }, 'gemini text'],
    ['whitespace folded', 'chat', { messages: [{ role: 'user', content: '  two\n\nlines  ' }] }, 'two lines'],
    ['no user text', 'chat', { messages: [{ role: 'system', content: 'sys' }] }, undefined],
    ['not an object', 'chat', 'text', undefined],
    ['messages not a list', 'messages', { messages: 'x' }, undefined],
  ] as const)('%s', (_, protocol, body, expected) => {
    expect(promptPreview(protocol, body)).toBe(expected);
  });

  it('cuts a long text', () => {
    const out = promptPreview('chat', { messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
    expect(out).toBe(`${'x'.repeat(PREVIEW_CHARS)}…`);
  });
});
