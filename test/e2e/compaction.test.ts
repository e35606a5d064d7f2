/**
 * Codex's remote compaction (`POST /v1/responses/compact`, and an ordinary request ending with a
 * `compaction_trigger` item) through the gateway, with the openai SDK as the client: passed through
 * to a Responses upstream as it is, and performed by the gateway with the model itself when the
 * model is behind a Chat or Messages upstream. The fake upstreams refuse what the real ones refuse
 * for these requests.
 */
import type { ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SUMMARY_PREFIX } from '#src/compact/compacted.js';
import { SUMMARY_INSTRUCTION } from '#src/compact/summary-request.js';
import type { Received } from '../helpers/received.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { CI_KEY, GATEWAY_KEY, PROVIDER_ANTHROPIC_KEY, startGateway, type TestGateway, waitForLines } from '../helpers/start-gateway.js';

type Json = Record<string, unknown>;
const SUMMARY = 'Goal: fix the failing parser test. Done: found the off-by-one in lexer.ts. Next: add a regression test.';

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const refuse = (res: ServerResponse, message: string) => json(res, 400, { error: { message, type: 'invalid_request_error' } });

/** A conversation as Codex sends it to be compacted: context, two user turns, a tool call and its output. */
const INPUT = [
  { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>' }] },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'The parser test fails, fix it.' }] },
  { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"command":["cat","lexer.ts"]}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'export function lex() {}' },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Found an off-by-one in lexer.ts.' }] },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Good, carry on.' }] },
];
const TOOLS = [{ type: 'function', name: 'shell', description: 'Runs a command.', parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } } }, strict: false }];
const COMPACTION_ITEM = { type: 'compaction', id: 'cmp_1', encrypted_content: 'opaque-summary' };

/** OpenAI: the compact endpoint answers the user messages and one opaque compaction item. */
function openaiCompact(req: Received, res: ServerResponse): void {
  const body = req.json as Json;
  if (req.url !== '/v1/responses/compact') {
    refuse(res, `Unexpected path ${req.url}`);
    return;
  }
  if ('stream' in body) {
    refuse(res, "Unknown parameter: 'stream'.");
    return;
  }
  const users = (body.input as Json[]).filter((i) => i.role === 'user');
  json(res, 200, {
    id: 'resp_cmp', object: 'response.compaction', created_at: 1, output: [...users, COMPACTION_ITEM],
    usage: { input_tokens: 50, output_tokens: 9, total_tokens: 59, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  });
}

/** The last user turn of the summary request must be the gateway's instruction. */
const asksForSummary = (text: unknown) => typeof text === 'string' && text.includes(SUMMARY_INSTRUCTION);

function chatSummary(req: Received, res: ServerResponse): void {
  const body = req.json as Json;
  if (req.url !== '/v1/chat/completions') {
    refuse(res, `Unexpected path ${req.url}`);
    return;
  }
  const messages = body.messages as Json[];
  if (body.stream === true) {
    refuse(res, 'The summary was asked as a stream.');
    return;
  }
  if (!asksForSummary(messages.at(-1)?.content)) {
    refuse(res, 'The last message is not the summary instruction.');
    return;
  }
  if (body.tool_choice !== 'none') {
    refuse(res, 'The summary request may call tools.');
    return;
  }
  json(res, 200, {
    id: 'c1', object: 'chat.completion', created: 1, model: body.model,
    choices: [{ index: 0, message: { role: 'assistant', content: SUMMARY }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 },
  });
}

/** Anthropic refuses tool blocks without their tools, and a last user turn that is not text. */
function anthropicSummary(req: Received, res: ServerResponse): void {
  const body = req.json as Json;
  if (req.url !== '/v1/messages') {
    refuse(res, `Unexpected path ${req.url}`);
    return;
  }
  const messages = body.messages as Json[];
  const hasToolBlocks = messages.some((m) => Array.isArray(m.content) && (m.content as Json[]).some((b) => b.type === 'tool_use'));
  if (hasToolBlocks && !Array.isArray(body.tools)) {
    refuse(res, 'Requests which include `tool_use` or `tool_result` blocks must define tools.');
    return;
  }
  const last = messages.at(-1)!;
  const lastText = typeof last.content === 'string' ? last.content : (last.content as Json[]).map((b) => b.text ?? '').join('');
  if (last.role !== 'user' || !asksForSummary(lastText)) {
    refuse(res, 'The last message is not the summary instruction.');
    return;
  }
  if ((body.tool_choice as Json | undefined)?.type !== 'none') {
    refuse(res, 'The summary request may call tools.');
    return;
  }
  json(res, 200, {
    id: 'msg_1', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: SUMMARY }],
    stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 40, output_tokens: 12 },
  });
}

let openai: FakeUpstream;
let chat: FakeUpstream;
let anthropic: FakeUpstream;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  [openai, chat, anthropic] = await Promise.all([startFakeUpstream(), startFakeUpstream(), startFakeUpstream()]);
  gw = await startGateway({
    providers: {
      openai: { type: 'openai', baseUrl: `${openai.url}/v1`, apiKey: 'sk-up', protocols: ['responses'], retries: 0 },
      compatible: { type: 'openai-compatible', baseUrl: `${chat.url}/v1`, retries: 0 },
      anthropic: { type: 'anthropic', baseUrl: anthropic.url, apiKey: PROVIDER_ANTHROPIC_KEY, retries: 0 },
    },
    models: {
      'gpt-codex': { provider: 'openai', upstreamModel: 'gpt-5-codex' },
      'kimi-coder': { provider: 'compatible' },
      'claude-coder': { provider: 'anthropic' },
    },
    keyGroups: { dev: { keys: [GATEWAY_KEY], models: ['*'] }, limited: { keys: [CI_KEY], models: ['*'], limits: { requestsPerMinute: 1 } } },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([openai, chat, anthropic].map((u) => u?.close()));
});

beforeEach(() => {
  for (const u of [openai, chat, anthropic]) u.reset();
  openai.always(openaiCompact);
  chat.always(chatSummary);
  anthropic.always(anthropicSummary);
});

const compact = (model: string, by: OpenAI = client) =>
  by.responses.compact({ model, input: INPUT as never, instructions: 'You are Codex.', tools: TOOLS as never, parallel_tool_calls: false } as never);

describe('POST /v1/responses/compact', () => {
  it('passes through to a Responses upstream as it is, with the model renamed', async () => {
    const answer = await compact('gpt-codex');
    expect(openai.received).toHaveLength(1);
    const sent = openai.last();
    expect(sent.url).toBe('/v1/responses/compact');
    expect((sent.json as Json).model).toBe('gpt-5-codex');
    expect((sent.json as Json).input).toEqual(INPUT);
    expect(answer.output.at(-1)).toEqual(COMPACTION_ITEM);
    expect(answer.object).toBe('response.compaction');
  });

  it.each([
    ['kimi-coder', 'Chat', () => chat, '/v1/chat/completions'],
    ['claude-coder', 'Messages', () => anthropic, '/v1/messages'],
  ])('%s (behind %s): the gateway asks the model for the summary and answers in the compact shape', async (model, _title, upstream, path) => {
    const linesBefore = gw.lines().length;
    const answer = await compact(model);
    const sent = upstream();
    expect(sent.received).toHaveLength(1);
    expect(sent.last().url).toBe(path);
    expect(answer.object).toBe('response.compaction');
    expect(answer.id).toMatch(/^resp_/);
    // The user messages, in their order, then the summary as a user message.
    expect(answer.output).toEqual([
      INPUT[1],
      INPUT[5],
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: SUMMARY_PREFIX + SUMMARY }] },
    ]);
    expect(answer.usage).toMatchObject({ input_tokens: 40, output_tokens: 12 });
    expect(openai.received).toHaveLength(0);
    // Logged like any model call, with the usage of the summary request.
    const line = (await waitForLines(gw, linesBefore + 1)).at(-1)!;
    expect(line).toContain(`POST /v1/responses/compact ${model} →`);
    expect(line).toContain(`[responses→${path === '/v1/messages' ? 'messages' : 'chat'}]`);
    expect(line).toMatch(/in 40 out 12/);
  });

  it('a model behind another protocol that answers no text fails the compaction with a clear error', async () => {
    chat.reset();
    chat.always((req, res) => {
      const body = req.json as Json;
      json(res, 200, {
        id: 'c1', object: 'chat.completion', created: 1, model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 40, completion_tokens: 0, total_tokens: 40 },
      });
    });
    await expect(compact('kimi-coder')).rejects.toMatchObject({ status: 502 });
  });

  it('counts against the key group limits like any model call', async () => {
    const limited = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: CI_KEY, maxRetries: 0 });
    await compact('kimi-coder', limited);
    await expect(compact('kimi-coder', limited)).rejects.toMatchObject({ status: 429 });
    expect(chat.received).toHaveLength(1);
  });
});

/** A plain answer for the turn after the compaction, in the upstream's protocol. */
function plainAnswer(req: Received, res: ServerResponse): void {
  const body = req.json as Json;
  if (req.url === '/v1/messages') {
    json(res, 200, {
      id: 'msg_2', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: 'Carrying on.' }],
      stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 30, output_tokens: 3 },
    });
    return;
  }
  json(res, 200, {
    id: 'c2', object: 'chat.completion', created: 1, model: body.model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'Carrying on.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 30, completion_tokens: 3, total_tokens: 33 },
  });
}

/** The text of every user turn the upstream received, in either protocol. */
const sentUserTexts = (body: Json): string[] =>
  (body.messages as Json[])
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : (m.content as Json[]).map((b) => (typeof b.text === 'string' ? b.text : '')).join('')));

describe('a Responses request ending with compaction_trigger (Codex on the built-in OpenAI provider)', () => {
  const TRIGGER = [...INPUT, { type: 'compaction_trigger' }];

  it.each([
    ['kimi-coder', 'Chat', true, () => chat],
    ['kimi-coder', 'Chat', false, () => chat],
    ['claude-coder', 'Messages', true, () => anthropic],
    ['claude-coder', 'Messages', false, () => anthropic],
  ])('%s (behind %s, stream %s): answered by one sealed compaction item, which the next turn opens into the summary', async (model, _title, stream, upstream) => {
    const request = { model, input: TRIGGER as never, instructions: 'You are Codex.', tools: TOOLS as never, store: false };
    let output: Json[];
    if (stream) {
      const events: string[] = [];
      const s = await client.responses.create({ ...request, stream: true });
      let completed: Json | undefined;
      for await (const ev of s) {
        events.push(ev.type);
        if (ev.type === 'response.completed') completed = ev.response as unknown as Json;
      }
      expect(events.filter((e) => e.startsWith('response.output_item.'))).toEqual(['response.output_item.added', 'response.output_item.done']);
      expect(events.some((e) => e.startsWith('response.output_text'))).toBe(false);
      output = completed?.output as Json[];
    } else {
      output = (await client.responses.create(request)).output as unknown as Json[];
    }
    // The upstream fakes refuse a summary request that streams, may call tools or does not end with the instruction.
    expect(upstream().received).toHaveLength(1);
    expect(output).toEqual([{ type: 'compaction', id: expect.any(String), encrypted_content: expect.stringMatching(/^mgw1\./) }]);
    expect(JSON.stringify(output)).not.toContain('off-by-one');

    upstream().once(plainAnswer);
    const next = await client.responses.create({
      model,
      input: [INPUT[1], output[0], { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Carry on.' }] }] as never,
      tools: TOOLS as never,
      store: false,
    });
    expect(next.output_text).toBe('Carrying on.');
    // Messages joins consecutive user turns into one: the texts are found in order in what was sent.
    const sent = sentUserTexts(upstream().last().json as Json).join('\n');
    const at = ['The parser test fails, fix it.', SUMMARY_PREFIX + SUMMARY, 'Carry on.'].map((t) => sent.indexOf(t));
    expect(Math.min(...at)).toBeGreaterThanOrEqual(0);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });

  it("drops a compaction item the gateway did not seal (OpenAI's own) and lists it", async () => {
    chat.once(plainAnswer);
    const { data, response } = await client.responses
      .create({ model: 'kimi-coder', input: [INPUT[1], COMPACTION_ITEM, { type: 'message', role: 'user', content: 'Carry on.' }] as never, store: false })
      .withResponse();
    expect(data.output_text).toBe('Carrying on.');
    expect(sentUserTexts(chat.last().json as Json)).toEqual(['The parser test fails, fix it.', 'Carry on.']);
    expect(response.headers.get('x-model-gateway-dropped')).toContain('compaction history');
  });
});
