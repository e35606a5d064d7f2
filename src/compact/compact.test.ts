import { describe, expect, it } from 'vitest';
import { translateContext } from '../../test/helpers/translate-context.js';
import { translatorFor } from '../translate/registry.js';
import { compactedAnswer, retainedUserMessages, SUMMARY_PREFIX } from './compacted.js';
import { SUMMARY_INSTRUCTION, summaryRequest } from './summary-request.js';
import { compactingTranslator } from './translator.js';

const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const ctx = () => translateContext({ caller: 'responses', upstream: 'chat', requestedModel: 'm', upstreamModel: 'up-m', upstreamDialect: 'openai' });

describe('summaryRequest', () => {
  it.each([
    [
      'a list of items: the instruction last, tools kept but not to be called',
      { model: 'm', input: [user('hi')], tools: [{ type: 'function', name: 'shell' }], parallel_tool_calls: true, store: true, stream: true },
      { model: 'm', input: [user('hi'), user(SUMMARY_INSTRUCTION)], tools: [{ type: 'function', name: 'shell' }], parallel_tool_calls: true, tool_choice: 'none', stream: false, store: false },
    ],
    [
      'a plain string: one user message; no tools, no tool_choice',
      { model: 'm', input: 'hi', instructions: 'Be brief.', tool_choice: 'required' },
      { model: 'm', instructions: 'Be brief.', input: [{ type: 'message', role: 'user', content: 'hi' }, user(SUMMARY_INSTRUCTION)], stream: false, store: false },
    ],
  ])('%s', (_name, body, expected) => {
    expect(summaryRequest(body)).toEqual(expected);
  });
});

describe('retainedUserMessages', () => {
  const items = [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'rules' }] },
    user('first ask'),
    { type: 'function_call_output', call_id: 'c', output: 'x' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] },
    { role: 'user', content: 'second' },
  ];
  it.each([
    ['all of them when they fit, content as parts', 100, [user('first ask'), user('second')]],
    ['the newest first; the one that no longer fits cut to what is left', 10, [user('firs'), user('second')]],
    ['only the newest when the budget ends with it', 6, [user('second')]],
    ['none with no budget', 0, []],
  ])('%s', (_name, budget, expected) => {
    expect(retainedUserMessages(items, budget)).toEqual(expected);
  });
});

describe('compactedAnswer', () => {
  const answer = (text: string) => ({
    object: 'response',
    output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }],
    usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
  });
  it('user messages, then the summary as a user message, with the usage', () => {
    expect(compactedAnswer(answer(' the summary '), { input: [user('go')] }, ctx())).toEqual({
      id: 'resp_test',
      object: 'response.compaction',
      created_at: 1_700_000_000,
      output: [user('go'), user(`${SUMMARY_PREFIX}the summary`)],
      usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
    });
  });
  it('an answer without text is an upstream error', () => {
    expect(() => compactedAnswer(answer('  '), { input: [user('go')] }, ctx())).toThrow(/without a summary/);
  });
});

describe('compactingTranslator over the real responses → chat translator', () => {
  const translator = compactingTranslator(translatorFor('responses', 'chat')!);
  const body = { model: 'm', input: [user('fix it')], stream: true };
  it('sends the conversation and the instruction, not streamed', () => {
    const sent = translator.request(body, ctx());
    expect(sent.stream).not.toBe(true);
    expect(sent.messages).toEqual([
      { role: 'user', content: 'fix it' },
      { role: 'user', content: SUMMARY_INSTRUCTION },
    ]);
  });
  it('turns the Chat answer into the compaction answer', () => {
    const chatAnswer = {
      id: 'c', object: 'chat.completion', created: 1, model: 'up-m',
      choices: [{ index: 0, message: { role: 'assistant', content: 'S' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    };
    const out = translator.response(chatAnswer, ctx(), body);
    expect(out.output).toEqual([user('fix it'), user(`${SUMMARY_PREFIX}S`)]);
    expect(out.usage).toMatchObject({ input_tokens: 3, output_tokens: 1 });
  });
  it("drops and lists OpenAI's opaque compaction item from an earlier compaction, which no other provider can read", () => {
    const c = ctx();
    const sent = translator.request({ ...body, input: [{ type: 'compaction', encrypted_content: 'opaque' }, user('fix it')] }, c);
    expect(JSON.stringify(sent)).not.toContain('opaque');
    expect(c.warnings).toContain('compaction history');
  });
  it('refuses to stream', () => {
    expect(() => translator.stream(ctx(), body)).toThrow();
  });
});
