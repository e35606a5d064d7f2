/**
 * Every kind of answer the gateway writes, read by the Vercel AI SDK's provider packages, whose schemas
 * are stricter than the official SDKs' (a `null` where they expect a field left out fails the whole
 * answer). Each answer of the table is given by a fake upstream of each protocol, and goes through the
 * real gateway to each package, whole (`generateText`) and streamed (`streamText`): the package must
 * read it without an error, with the answer's text and tool calls. A stream the upstream breaks off
 * must reach the package as the protocol's error event, which it reads as an error, not a schema failure.
 */
import { generateText, jsonSchema, streamText, tool, TypeValidationError, type LanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { PROTOCOLS, } from '#src/protocols/types.js';
import { codecs } from '#src/translate/codecs.js';
import { responseToEvents } from '#src/translate/common/ir-stream.js';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '#src/translate/types.js';
import { GATEWAY_KEY, } from '../helpers/start-gateway.js';
import { contextFor } from '../conformance/context.js';
import { scenarios } from '../conformance/scenarios.js';
import { answerWith, modelOn, protocolGateway, } from '../conformance/upstreams.js';
import { aiSdkProviders } from './ai-sdk-providers.js';


const answer = (content: Ir.AssistantPart[], stopReason: Ir.StopReason = 'end', extra: Partial<Ir.Response> = {}): Ir.Response => ({
  id: 'up-1',
  model: 'upstream-model',
  created: 1_700_000_000,
  content,
  stopReason,
  usage: { inputTokens: 20, outputTokens: 5 },
  ...extra,
});

/** Answers beyond the conformance scenarios': the shapes only some protocols produce. */
const EXTRA: readonly { name: string; response: Ir.Response }[] = [
  { name: 'empty answer', response: answer([]) },
  { name: 'text in several parts', response: answer([{ type: 'text', text: 'One. ' }, { type: 'text', text: 'Two.' }]) },
  { name: 'refusal', response: answer([{ type: 'refusal', text: 'I can’t help with that.' }], 'refusal') },
  { name: 'content filter', response: answer([{ type: 'text', text: 'Partial' }], 'content_filter') },
  { name: 'stop sequence', response: answer([{ type: 'text', text: 'Up to ' }], 'stop_sequence', { stopSequence: 'END' }) },
  {
    name: 'redacted and signed thinking',
    response: answer([
      { type: 'reasoning', text: 'Thinking it over.', signature: 'c2lnbmF0dXJl' },
      { type: 'reasoning', text: '', redacted: 'cmVkYWN0ZWQ=' },
      { type: 'text', text: 'Done.' },
    ]),
  },
  {
    name: 'reasoning with a summary and encrypted content',
    response: answer([
      { type: 'reasoning', id: 'rs_1', text: '', summary: ['First I look.', 'Then I answer.'], encrypted: 'gAAAAB-opaque' },
      { type: 'text', text: 'Answer.' },
    ]),
  },
  { name: 'reasoning text without a signature', response: answer([{ type: 'reasoning', text: 'Let me see.' }, { type: 'text', text: 'Seen.' }]) },
  {
    name: 'text, then a tool call with empty arguments',
    response: answer(
      [
        { type: 'text', text: 'Listing.' },
        { type: 'tool_call', id: 'call_list', name: 'list_cities', kind: 'function', arguments: '{}' },
      ],
      'tool_calls',
    ),
  },
  {
    name: 'cache reads and writes, reasoning tokens',
    response: answer([{ type: 'text', text: 'Cached.' }], 'end', {
      usage: { inputTokens: 1000, outputTokens: 40, cacheReadTokens: 600, cacheWriteTokens: 300, reasoningTokens: 30 },
    }),
  },
];

const ANSWERS = [...scenarios.map((s) => ({ name: s.name, response: s.response })), ...EXTRA];

const CITY = jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
const run = async () => 'done';
/** One step only (the SDK's default): the SDK runs a called tool but asks nothing more. */
const TOOLS = {
  get_weather: tool({ description: 'Current weather for a city', inputSchema: CITY, execute: run }),
  get_time: tool({ description: 'Local time in a city', inputSchema: CITY, execute: run }),
  list_cities: tool({ description: 'The cities known', inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }), execute: run }),
};

interface Read {
  readonly text: string;
  readonly toolCalls: { id: string; name: string; input: unknown }[];
  readonly errors: unknown[];
}

const RUNS: Record<'generateText' | 'streamText', (model: LanguageModel) => Promise<Read>> = {
  generateText: async (model) => {
    try {
      const result = await generateText({ model, prompt: 'Go.', tools: TOOLS, maxOutputTokens: 256, maxRetries: 0 });
      return { text: result.text, toolCalls: result.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: c.input })), errors: [] };
    } catch (error) {
      return { text: '', toolCalls: [], errors: [error] };
    }
  },
  streamText: async (model) => {
    const result = streamText({ model, prompt: 'Go.', tools: TOOLS, maxOutputTokens: 256, maxRetries: 0, onError: () => {} });
    const read = { text: '', toolCalls: [] as Read['toolCalls'], errors: [] as unknown[] };
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') read.text += part.text;
      else if (part.type === 'tool-call') read.toolCalls.push({ id: part.toolCallId, name: part.toolName, input: part.input });
      else if (part.type === 'error') read.errors.push(part.error);
    }
    return read;
  },
};

/** What the caller should read: all text (the AI SDK shows a refusal as text), every call. */
function expected(response: Ir.Response) {
  const text = response.content.flatMap((p) => (p.type === 'text' || p.type === 'refusal' ? [p.text] : [])).join('');
  const toolCalls = response.content.flatMap((p) => (p.type === 'tool_call' ? [{ id: p.id, name: p.name, input: JSON.parse(p.arguments) as unknown }] : []));
  return { text, toolCalls };
}

/** A schema failure names the field; anything else is reported as it is. */
const describeError = (e: unknown) => (TypeValidationError.isInstance(e) ? `schema: ${e.message}` : String((e as Error)?.message ?? JSON.stringify(e)));

const suite = protocolGateway();

const CASES = aiSdkProviders.flatMap((provider) => PROTOCOLS.map((upstream) => ({ provider, upstream })));

describe.each(CASES)('$provider.name ← $upstream upstream', ({ provider, upstream }) => {
  it.each(ANSWERS)('$name, whole and streamed', async ({ response }) => {
    suite.upstream.always(answerWith(upstream, response));
    const model = provider.model(suite.gateway.url, GATEWAY_KEY, modelOn(upstream));
    const want = expected(response);
    for (const [run, read] of Object.entries(RUNS)) {
      const got = await read(model);
      expect(got.errors.map(describeError), run).toEqual([]);
      expect(got.text, run).toBe(want.text);
      expect(got.toolCalls, run).toEqual(want.toolCalls);
    }
  });

  it('an upstream breaking off mid-stream reaches streamText as an error event', async () => {
    const text = answer([{ type: 'text', text: 'Half an answ' }]);
    suite.upstream.always((req, res) => {
      const encoder = codecs[upstream].encodeStream({ ...contextFor(upstream), requestedModel: 'upstream-model' }, req.json as Json);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // The start and the text block, then the connection drops.
      res.write(responseToEvents(text).slice(0, 3).map((e) => encoder.push(e)).join(''));
      setTimeout(() => res.destroy(), 20);
    });
    const got = await RUNS.streamText(provider.model(suite.gateway.url, GATEWAY_KEY, modelOn(upstream)));
    expect(got.errors).toHaveLength(1);
    expect(describeError(got.errors[0])).not.toMatch(/^schema:/);
    expect(JSON.stringify(got.errors[0]) + String((got.errors[0] as Error)?.message)).toMatch(/broke off/);
  });
});
