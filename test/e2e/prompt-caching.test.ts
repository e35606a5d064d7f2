/**
 * Prompt caching through translation, end to end: consecutive turns of one real Claude Code
 * conversation reach Chat, Responses and Gemini upstreams with a byte-identical prefix (what automatic
 * prefix caches need), so do a Gemini caller's turns on Messages and Chat upstreams, cache keys reach
 * the upstreams that take them, and cache usage in each upstream's own fields reaches each caller in
 * its own.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestRecord } from '#src/log/record.js';
import { PROTOCOLS, type Protocol } from '#src/protocols/types.js';
import type * as Ir from '#src/translate/ir.js';
import { answerWith, callOf } from '../conformance/upstreams.js';
import { answerUsage, callerBodies, callerCounts, families, streamedAnswer, streamUsage, toldTo, wholeAnswer } from '../helpers/cache-usage-families.js';
import { fakeGemini, GEMINI_API_KEY } from '../helpers/fake-gemini.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY, PROVIDER_ANTHROPIC_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';

type Json = Record<string, unknown>;

interface Fixture {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Json;
}

const load = (name: string): Fixture => JSON.parse(readFileSync(new URL(`../fixtures/clients/${name}`, import.meta.url), 'utf8')) as Fixture;

/** The fixture's own headers with our key, minus those the HTTP client sets itself. */
function clientHeaders(f: Fixture): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(f.headers)) {
    const lower = name.toLowerCase();
    if (['host', 'content-length', 'connection', 'accept-encoding'].includes(lower)) continue;
    out[lower] = lower === 'x-api-key' ? GATEWAY_KEY : lower === 'authorization' ? `Bearer ${GATEWAY_KEY}` : value;
  }
  return out;
}

const clone = <T>(v: T): T => structuredClone(v);

/** Claude Code keeps one moving breakpoint on the newest message: the older ones lose theirs. */
function withoutCacheControl(messages: Json[]): Json[] {
  return messages.map((m) => {
    if (!Array.isArray(m.content)) return m;
    return { ...m, content: (m.content as Json[]).map(({ cache_control: _dropped, ...block }) => block) };
  });
}

/**
 * Turn 3 of the tool loop, built as Claude Code builds it from turn 2: the assistant's answer
 * (thinking, text and a second Bash call) appended, then the tool result with the system reminder
 * Claude Code adds next to it and the breakpoint moved there, then its per-turn system message
 * after the newest user message (where the first-turn fixture has it).
 */
function thirdTurn(turn2: Json): Json {
  const messages = withoutCacheControl(clone(turn2.messages as Json[]));
  messages.push(
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The echo worked; now list the directory.', signature: '[opaque thinking signature, turn 3]' },
        { type: 'text', text: 'Now the listing.' },
        { type: 'tool_use', id: 'toolu_2d35dd0ac431ff32255f8279', name: 'Bash', input: { command: 'ls', description: 'List files' } },
      ],
    },
    {
      role: 'user',
      content: [
        { tool_use_id: 'toolu_2d35dd0ac431ff32255f8279', type: 'tool_result', content: 'README.md\nsrc', is_error: false },
        {
          type: 'text',
          text: '<system-reminder>\nThe task tools have not been used recently. Use them if they help.\n</system-reminder>',
          cache_control: { type: 'ephemeral' },
        },
      ],
    },
    { role: 'system', content: '# Environment\nWorking directory: /home/user/project\nTurn: 3', output_config: { effort: 'medium' } },
  );
  return { ...clone(turn2), messages };
}

let upstream: FakeUpstream;
let gw: TestGateway;
/** The records of the requests that ended, as the log gets them. */
const records: RequestRecord[] = [];

beforeAll(async () => {
  upstream = await startFakeUpstream();
  const config = {
    providers: {
      openaiChat: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-openai-provider-key-0000', protocols: ['chat'], retries: 0 },
      openaiResponses: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-openai-provider-key-0000', protocols: ['responses'], retries: 0 },
      compatible: { type: 'openai-compatible', baseUrl: `${upstream.url}/v1`, retries: 0 },
      anthropic: { type: 'anthropic', baseUrl: upstream.url, apiKey: PROVIDER_ANTHROPIC_KEY, retries: 0 },
      google: { type: 'gemini', baseUrl: `${upstream.url}/v1beta`, apiKey: GEMINI_API_KEY, retries: 0 },
    },
    models: {
      'openai-chat': { provider: 'openaiChat', upstreamModel: 'gpt-upstream' },
      'openai-responses': { provider: 'openaiResponses', upstreamModel: 'gpt-upstream' },
      'compatible-chat': { provider: 'compatible', upstreamModel: 'deepseek-upstream' },
      'anthropic-messages': { provider: 'anthropic', upstreamModel: 'claude-upstream' },
      gemini: { provider: 'google', upstreamModel: 'gemini-3-pro-preview' },
      // One model per upstream protocol, for the usage families.
      'on-chat': { provider: 'compatible', upstreamModel: 'upstream-model' },
      'on-responses': { provider: 'openaiResponses', upstreamModel: 'upstream-model' },
      'on-messages': { provider: 'anthropic', upstreamModel: 'upstream-model' },
      'on-gemini': { provider: 'google', upstreamModel: 'upstream-model' },
    },
    keyGroups: { dev: { keys: [GATEWAY_KEY] } },
  } satisfies Parameters<typeof startGateway>[0];
  gw = await startGateway(config, { observers: [{ requestEnded: (record) => records.push(record) }] });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

describe('three consecutive Claude Code turns share a byte-identical prefix upstream', () => {
  const first = load('claude-code-2.1.330-messages-first-turn.json');
  const second = load('claude-code-2.1.330-messages-tool-result.json');
  const turns = [first.body, second.body, thirdTurn(second.body)];

  async function sendTurns(model: string): Promise<Json[]> {
    const bodies: Json[] = [];
    for (const turn of turns) {
      const res = await call(`${gw.url}${first.path}`, { headers: clientHeaders(first), body: JSON.stringify({ ...turn, model }) });
      expect(res.status, res.text).toBe(200);
      bodies.push(upstream.last().json as Json);
    }
    return bodies;
  }

  /** Every element of turn N's list is, byte for byte, the same element of turn N+1's (as `seen` shows it). */
  function expectPrefixKept(bodies: Json[], list: 'messages' | 'input' | 'contents', seen: (element: unknown) => unknown = (e) => e) {
    for (let n = 0; n + 1 < bodies.length; n++) {
      const before = bodies[n]![list] as unknown[];
      const after = bodies[n + 1]![list] as unknown[];
      expect(after.length, `turn ${n + 2} is longer`).toBeGreaterThan(before.length);
      for (const [i, element] of before.entries()) {
        expect(JSON.stringify(seen(after[i])), `turn ${n + 2}, ${list}[${i}]`).toBe(JSON.stringify(seen(element)));
      }
    }
  }

  it('an OpenAI Chat upstream', async () => {
    const bodies = await sendTurns('openai-chat');
    expectPrefixKept(bodies, 'messages');
    // Tools come before the messages in what the model reads: they must not move either.
    for (const body of bodies.slice(1)) expect(JSON.stringify(body.tools)).toBe(JSON.stringify(bodies[0]!.tools));
  });

  it('a compatible Chat upstream (DeepSeek, vLLM): the same, apart from the breakpoints Claude Code itself moves', async () => {
    const bodies = await sendTurns('compatible-chat');
    // Compatible servers get the caller's `cache_control` breakpoints (OpenRouter's Claude models cache by them),
    // and Claude Code moves its breakpoint to the newest message each turn. Servers that cache prefixes by
    // themselves render a part without its marker, and one text part as its text: everything else is kept.
    const rendered = (message: unknown): unknown => {
      const m = message as Json;
      if (!Array.isArray(m.content)) return m;
      const parts = (m.content as Json[]).map(({ cache_control: _marker, ...part }) => part);
      const only = parts.length === 1 && parts[0]!.type === 'text' ? (parts[0]!.text as string) : undefined;
      return { ...m, content: only ?? parts };
    };
    expectPrefixKept(bodies, 'messages', rendered);
    // The leading system message has breakpoints that stay, and nothing later is hoisted into it: byte for byte.
    const leading = (body: Json) => JSON.stringify((body.messages as unknown[])[0]);
    expect(leading(bodies[2]!)).toBe(leading(bodies[0]!));
    for (const body of bodies.slice(1)) expect(JSON.stringify(body.tools)).toBe(JSON.stringify(bodies[0]!.tools));
  });

  it('a Gemini upstream (Gemini caches a repeated prefix by itself): the contents, and the system instruction and tools before them', async () => {
    // A Gemini 3 that checks the history's function calls for their signatures, as the real one does.
    upstream.always(fakeGemini({ apiKey: GEMINI_API_KEY }).behaviour);
    const bodies = await sendTurns('gemini');
    expectPrefixKept(bodies, 'contents');
    for (const body of bodies.slice(1)) {
      expect(JSON.stringify(body.systemInstruction)).toBe(JSON.stringify(bodies[0]!.systemInstruction));
      expect(JSON.stringify(body.tools)).toBe(JSON.stringify(bodies[0]!.tools));
    }
  });

  it('an OpenAI Responses upstream', async () => {
    const bodies = await sendTurns('openai-responses');
    expectPrefixKept(bodies, 'input');
    for (const body of bodies.slice(1)) {
      expect(body.instructions).toBe(bodies[0]!.instructions);
      expect(JSON.stringify(body.tools)).toBe(JSON.stringify(bodies[0]!.tools));
    }
  });
});

describe('two consecutive Codex turns share a byte-identical prefix on a Chat upstream', () => {
  const turns = [load('codex-0.169.0-responses-first-turn.json'), load('codex-0.169.0-responses-function-call-output.json')];

  it.each(['openai-chat', 'compatible-chat'])('%s', async (model) => {
    const bodies: Json[] = [];
    for (const turn of turns) {
      const res = await call(`${gw.url}${turn.path}`, { headers: clientHeaders(turn), body: JSON.stringify({ ...turn.body, model }) });
      expect(res.status, res.text).toBe(200);
      bodies.push(upstream.last().json as Json);
    }
    const [before, after] = bodies.map((b) => (b.messages as unknown[]).map((m) => JSON.stringify(m)));
    expect(after!.slice(0, before!.length)).toEqual(before);
    expect(after!.length).toBeGreaterThan(before!.length);
  });
});

/**
 * Turn 3 of the Codex conversation, built as Codex builds it from turn 2: its answer appended, then
 * a developer message mid-conversation (Codex sends one when the session's permissions change), then
 * the user's next message.
 */
function codexThirdTurn(turn2: Json): Json {
  const input = clone(turn2.input as Json[]);
  input.push(
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It printed hello-from-tool.' }] },
    {
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text: '<permissions instructions>\nApprovals are now never asked for.\n</permissions instructions>' }],
    },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'now list the files' }] },
  );
  return { ...clone(turn2), input };
}

describe('three consecutive Codex turns share a byte-identical prefix on a Messages upstream', () => {
  const first = load('codex-0.169.0-responses-first-turn.json');
  const second = load('codex-0.169.0-responses-function-call-output.json');
  const turns = [first.body, second.body, codexThirdTurn(second.body)];

  it('the developer message that arrives mid-conversation stays in place: system, tools and earlier turns are unchanged', async () => {
    const bodies: Json[] = [];
    for (const turn of turns) {
      const res = await call(`${gw.url}${first.path}`, { headers: clientHeaders(first), body: JSON.stringify({ ...turn, model: 'on-messages' }) });
      expect(res.status, res.text).toBe(200);
      bodies.push(upstream.last().json as Json);
    }
    // The gateway puts its breakpoint on each request's newest block, as Claude Code does: the marker moves, the bytes do not.
    const unmarked = (message: unknown) => JSON.stringify(message, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
    for (let n = 0; n + 1 < bodies.length; n++) {
      const [before, after] = [bodies[n]!, bodies[n + 1]!];
      expect(JSON.stringify(after.system), `turn ${n + 2}, system`).toBe(JSON.stringify(before.system));
      expect(JSON.stringify(after.tools), `turn ${n + 2}, tools`).toBe(JSON.stringify(before.tools));
      const earlier = before.messages as unknown[];
      const later = after.messages as unknown[];
      expect(later.length, `turn ${n + 2} is longer`).toBeGreaterThan(earlier.length);
      for (const [i, message] of earlier.entries()) expect(unmarked(later[i]), `turn ${n + 2}, messages[${i}]`).toBe(unmarked(message));
    }
    // The developer text reached the model, as user text after the assistant's answer.
    const last = bodies[2]!.messages as Json[];
    expect(unmarked(last.at(-1))).toContain('Approvals are now never asked for.');
    expect(last.at(-2)!.role).toBe('assistant');
  });
});

/** A tool as the Gemini CLI declares it. */
const GEMINI_TOOLS = [
  {
    functionDeclarations: [
      {
        name: 'run_shell_command',
        description: 'Runs a shell command',
        parametersJsonSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
      },
    ],
  },
];
/** A Gemini caller's request: the same system instruction, tools and config every turn, around the contents so far. */
const geminiTurn = (contents: Json[]): Json => ({
  systemInstruction: { parts: [{ text: 'You are an interactive CLI agent.' }] },
  contents,
  tools: GEMINI_TOOLS,
  generationConfig: { temperature: 0, thinkingConfig: { includeThoughts: true } },
});

/** The upstream's answers, in turn: a signed thought and a call, then text, then text. */
const upstreamAnswers: Ir.Response[] = [
  {
    id: 'up-1',
    model: 'upstream-model',
    created: 1_700_000_000,
    content: [
      { type: 'reasoning', text: 'List the files first.', signature: 'c2lnbmVkLXRoaW5raW5nLTE=' },
      { type: 'tool_call', id: 'call_ls_1', name: 'run_shell_command', kind: 'function', arguments: '{"command":"ls"}' },
    ],
    stopReason: 'tool_calls',
    usage: { inputTokens: 300, outputTokens: 20 },
  },
  { id: 'up-2', model: 'upstream-model', created: 1_700_000_001, content: [{ type: 'text', text: 'Two files.' }], stopReason: 'end', usage: { inputTokens: 340, outputTokens: 4 } },
  { id: 'up-3', model: 'upstream-model', created: 1_700_000_002, content: [{ type: 'text', text: 'Done.' }], stopReason: 'end', usage: { inputTokens: 360, outputTokens: 2 } },
];

describe('three consecutive Gemini caller turns share a byte-identical prefix upstream', () => {
  /** Sends the three turns, each built from the gateway's answer to the one before; returns what reached the upstream. */
  async function sendTurns(upstreamProtocol: Protocol, model: string): Promise<Json[]> {
    for (const a of upstreamAnswers) upstream.once(answerWith(upstreamProtocol, a));
    /** What the user sends after each answer: the function's result, then a question. */
    const userTurns: Json[] = [
      { role: 'user', parts: [{ functionResponse: { id: 'call_ls_1', name: 'run_shell_command', response: { output: 'README.md\nsrc' } } }] },
      { role: 'user', parts: [{ text: 'Now summarise them.' }] },
    ];
    const contents: Json[] = [{ role: 'user', parts: [{ text: 'What is in this directory?' }] }];
    const bodies: Json[] = [];
    for (let turn = 0; turn < 3; turn++) {
      const res = await callAs('gemini', model, false, geminiTurn(contents));
      expect(res.status, res.text).toBe(200);
      bodies.push(upstream.last().json as Json);
      // The model's content goes back as it came, thought signatures included.
      const answer = ((res.json as Json).candidates as Json[])[0]!.content as Json;
      const reply = userTurns[turn];
      contents.push(answer, ...(reply ? [reply] : []));
    }
    return bodies;
  }

  it('a Messages upstream: system, tools and earlier messages unchanged, the signed thinking sent back as it was given', async () => {
    const bodies = await sendTurns('messages', 'anthropic-messages');
    const unmarked = (v: unknown) => JSON.stringify(v, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
    for (let n = 0; n + 1 < bodies.length; n++) {
      const [before, after] = [bodies[n]!, bodies[n + 1]!];
      expect(unmarked(after.system), `turn ${n + 2}, system`).toBe(unmarked(before.system));
      expect(JSON.stringify(after.tools), `turn ${n + 2}, tools`).toBe(JSON.stringify(before.tools));
      const earlier = before.messages as unknown[];
      const later = after.messages as unknown[];
      expect(later.length, `turn ${n + 2} is longer`).toBeGreaterThan(earlier.length);
      for (const [i, message] of earlier.entries()) expect(unmarked(later[i]), `turn ${n + 2}, messages[${i}]`).toBe(unmarked(message));
    }
    // Anthropic checks the thinking block before a tool use: it is the one the upstream signed.
    const assistant = (bodies[1]!.messages as Json[]).find((m) => m.role === 'assistant')!;
    expect((assistant.content as Json[])[0]).toMatchObject({ type: 'thinking', thinking: 'List the files first.', signature: 'c2lnbmVkLXRoaW5raW5nLTE=' });
  });

  it('a Chat upstream: every earlier message unchanged', async () => {
    const bodies = await sendTurns('chat', 'openai-chat');
    for (let n = 0; n + 1 < bodies.length; n++) {
      const earlier = (bodies[n]!.messages as unknown[]).map((m) => JSON.stringify(m));
      const later = (bodies[n + 1]!.messages as unknown[]).map((m) => JSON.stringify(m));
      expect(later.length, `turn ${n + 2} is longer`).toBeGreaterThan(earlier.length);
      expect(later.slice(0, earlier.length), `turn ${n + 2}`).toEqual(earlier);
      expect(JSON.stringify(bodies[n + 1]!.tools)).toBe(JSON.stringify(bodies[n]!.tools));
    }
  });
});

/**
 * Where each caller protocol is served for a model, whole or streamed, and how its callers present their key.
 * Gemini's path names the model and the method, and its body names neither.
 */
const endpoints: Record<Protocol, { path: (model: string, stream: boolean) => string; headers: Record<string, string>; modelInBody: boolean }> = {
  chat: { path: () => '/v1/chat/completions', headers: { authorization: `Bearer ${GATEWAY_KEY}` }, modelInBody: true },
  responses: { path: () => '/v1/responses', headers: { authorization: `Bearer ${GATEWAY_KEY}` }, modelInBody: true },
  messages: { path: () => '/v1/messages', headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' }, modelInBody: true },
  gemini: {
    path: (model, stream) => `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    headers: { 'x-goog-api-key': GATEWAY_KEY },
    modelInBody: false,
  },
};

/** A caller's request of `body` to `model`, in its protocol's place. */
function callAs(caller: Protocol, model: string, stream: boolean, body: Json) {
  const { path, headers, modelInBody } = endpoints[caller];
  return call(`${gw.url}${path(model, stream)}`, { headers, body: JSON.stringify(modelInBody ? { ...body, model } : body) });
}

/** The record of the request that just got its response: the log line is made when the response closes. */
async function nextRecord(before: number): Promise<RequestRecord> {
  for (let i = 0; records.length <= before && i < 500; i++) await new Promise((r) => setTimeout(r, 10));
  const record = records[before];
  if (!record) throw new Error('the request was never logged');
  return record;
}

describe('cache usage in each upstream’s own fields reaches each caller in its own, and the log', () => {
  const cases = families.flatMap((family) => PROTOCOLS.flatMap((caller) => [false, true].map((stream) => [family.name, caller, stream, family] as const)));

  it.each(cases)('%s to a %s caller (streamed: %s)', async (_name, caller, stream, family) => {
    upstream.always((req, res) => {
      const streamed = callOf(family.upstream, req).stream;
      res.writeHead(200, { 'content-type': streamed ? 'text/event-stream' : 'application/json' });
      res.end(streamed ? streamedAnswer(family) : JSON.stringify(wholeAnswer(family)));
    });
    const before = records.length;
    const res = await callAs(caller, `on-${family.upstream}`, stream, callerBodies[caller](stream));
    expect(res.status, res.text).toBe(200);
    // On passthrough the caller gets the upstream's own fields, as they are.
    if (caller !== family.upstream) {
      const usage = stream ? streamUsage[caller](res.text) : answerUsage(caller, res.json as Json);
      expect(callerCounts[caller](usage)).toEqual(toldTo(caller, family.expected));
    }
    const { usage } = await nextRecord(before);
    expect({
      input: usage?.inputTokens,
      output: usage?.outputTokens,
      cacheRead: usage?.cachedTokens ?? 0,
      cacheWrite: usage?.cacheWriteTokens ?? 0,
    }).toEqual(family.expected);
  });
});

describe('cache keys', () => {
  const claudeCode = load('claude-code-2.1.330-messages-tool-result.json');
  const codex = load('codex-0.169.0-responses-function-call-output.json');
  const send = async (f: Fixture, model: string) => {
    const res = await call(`${gw.url}${f.path}`, { headers: clientHeaders(f), body: JSON.stringify({ ...f.body, model }) });
    expect(res.status, res.text).toBe(200);
    return upstream.last().json as Json;
  };

  it("Claude Code's session id is the prompt_cache_key of its requests to OpenAI, on Chat and Responses", async () => {
    const sessionId = claudeCode.headers['X-Claude-Code-Session-Id'];
    expect(sessionId).toBeDefined();
    expect((await send(claudeCode, 'openai-chat')).prompt_cache_key).toBe(sessionId);
    expect((await send(claudeCode, 'openai-responses')).prompt_cache_key).toBe(sessionId);
  });

  it("Codex's prompt_cache_key reaches an OpenAI Chat upstream as it sent it", async () => {
    const chat = await send(codex, 'openai-chat');
    expect(chat.prompt_cache_key).toBe(codex.body.prompt_cache_key);
  });

  it('a compatible server gets no key: it caches by prefix alone, and strict ones refuse fields they do not know', async () => {
    expect(await send(claudeCode, 'compatible-chat')).not.toHaveProperty('prompt_cache_key');
    expect(await send(codex, 'compatible-chat')).not.toHaveProperty('prompt_cache_key');
  });
});
