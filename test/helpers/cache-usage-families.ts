/**
 * Prompt-cache usage as real upstreams write it, one family of fields each, and the answers that carry
 * it on the wire, whole and streamed, in the family's protocol. What every caller must be told is given
 * in the IR's terms (input counts the cache reads and writes): test/conformance/cache-usage.test.ts
 * runs each family to each caller through the codecs, test/e2e/prompt-caching.test.ts through the gateway.
 * The caller's side, at the end, reads each protocol's usage fields as its API reference names them.
 */
import type { Protocol } from '#src/protocols/types.js';
import { createSseDecoder, type SseEvent } from '#src/sse/parse.js';
import { codecs } from '#src/translate/codecs.js';
import { responseToEvents } from '#src/translate/common/ir-stream.js';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '#src/translate/types.js';
import { translateContext } from './translate-context.js';

/** Where a Chat stream states its usage: its own last chunk (OpenAI), the finish chunk, or the finish chunk's choice (Kimi). */
type ChatUsagePlace = 'own chunk' | 'finish chunk' | 'choice';

export interface CacheUsageFamily {
  readonly name: string;
  readonly upstream: Protocol;
  /** The usage object, as the upstream writes it (Gemini's is its answer's `usageMetadata`). */
  readonly usage: Json;
  readonly chatStream?: ChatUsagePlace;
  readonly expected: { readonly input: number; readonly output: number; readonly cacheRead: number; readonly cacheWrite: number };
}

export const families: readonly CacheUsageFamily[] = [
  {
    name: 'OpenAI Chat',
    upstream: 'chat',
    usage: {
      prompt_tokens: 2006,
      completion_tokens: 300,
      total_tokens: 2306,
      prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
    expected: { input: 2006, output: 300, cacheRead: 1920, cacheWrite: 0 },
  },
  {
    // Hits plus misses make `prompt_tokens`; DeepSeek counts no writes. Its stream states usage on the finish chunk.
    name: 'DeepSeek',
    upstream: 'chat',
    usage: {
      prompt_tokens: 1500,
      completion_tokens: 40,
      total_tokens: 1540,
      prompt_cache_hit_tokens: 1280,
      prompt_cache_miss_tokens: 220,
      completion_tokens_details: { reasoning_tokens: 12 },
    },
    chatStream: 'finish chunk',
    expected: { input: 1500, output: 40, cacheRead: 1280, cacheWrite: 0 },
  },
  {
    // Moonshot's `cached_tokens` at the top of usage, inside `prompt_tokens`; a stream's usage sits in the last choice.
    name: 'Kimi',
    upstream: 'chat',
    usage: { prompt_tokens: 2989, completion_tokens: 20, total_tokens: 3009, cached_tokens: 2560 },
    chatStream: 'choice',
    expected: { input: 2989, output: 20, cacheRead: 2560, cacheWrite: 0 },
  },
  {
    // With --enable-prompt-tokens-details.
    name: 'vLLM',
    upstream: 'chat',
    usage: { prompt_tokens: 900, total_tokens: 950, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 768 } },
    expected: { input: 900, output: 50, cacheRead: 768, cacheWrite: 0 },
  },
  {
    // A Claude model behind OpenRouter writing its cache; `cost` is money and must not be read as tokens.
    name: 'OpenRouter',
    upstream: 'chat',
    usage: {
      prompt_tokens: 1294,
      completion_tokens: 2,
      total_tokens: 1296,
      cost: 0.95,
      cost_details: { upstream_inference_cost: 19 },
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 100, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
    expected: { input: 1294, output: 2, cacheRead: 1000, cacheWrite: 100 },
  },
  {
    // Anthropic's `input_tokens` leaves the cache out; `cache_creation` breaks the writes down by lifetime.
    name: 'Anthropic',
    upstream: 'messages',
    usage: {
      input_tokens: 50,
      cache_creation_input_tokens: 3000,
      cache_read_input_tokens: 10000,
      cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
      output_tokens: 25,
      service_tier: 'standard',
    },
    expected: { input: 13050, output: 25, cacheRead: 10000, cacheWrite: 3000 },
  },
  {
    name: 'OpenAI Responses',
    upstream: 'responses',
    usage: {
      input_tokens: 5000,
      input_tokens_details: { cached_tokens: 4096 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 10 },
      total_tokens: 5040,
    },
    expected: { input: 5000, output: 40, cacheRead: 4096, cacheWrite: 0 },
  },
  {
    // Gemini's implicit cache: `promptTokenCount` includes the `cachedContentTokenCount` read from it,
    // and `candidatesTokenCount` leaves out the thinking (`thoughtsTokenCount`). Gemini counts no writes.
    name: 'Gemini',
    upstream: 'gemini',
    usage: {
      promptTokenCount: 4200,
      candidatesTokenCount: 60,
      thoughtsTokenCount: 40,
      totalTokenCount: 4300,
      cachedContentTokenCount: 4096,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 4200 }],
      cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 4096 }],
    },
    expected: { input: 4200, output: 100, cacheRead: 4096, cacheWrite: 0 },
  },
];

/** Where each protocol's answer states its usage. */
const USAGE_FIELD: Record<Protocol, string> = { chat: 'usage', responses: 'usage', messages: 'usage', gemini: 'usageMetadata' };

/** The usage object of a whole answer in `protocol`. */
export const answerUsage = (protocol: Protocol, body: Json): Json => obj(body[USAGE_FIELD[protocol]]);

const answer: Ir.Response = {
  id: 'up-1',
  model: 'upstream-model',
  created: 1_700_000_000,
  content: [{ type: 'text', text: 'Cached hello.' }],
  stopReason: 'end',
  usage: { inputTokens: 1, outputTokens: 1 },
};

const ctxOf = (upstream: Protocol): Ir.TranslateContext =>
  translateContext({
    caller: upstream,
    upstream,
    requestedModel: 'upstream-model',
    upstreamModel: 'upstream-model',
    upstreamDialect: upstream === 'messages' ? 'anthropic' : upstream === 'gemini' ? 'compatible' : 'openai',
  });

/** The family's whole answer: its protocol's answer with the family's usage object in place of the codec's. */
export function wholeAnswer(family: CacheUsageFamily): Json {
  return { ...codecs[family.upstream].encodeResponse(answer, ctxOf(family.upstream), { model: 'upstream-model' }), [USAGE_FIELD[family.upstream]]: family.usage };
}

/** A Gemini chunk's usage: the prompt's count on each chunk before the last, all of it on the last (with the finish). */
function geminiChunkUsage(chunk: Json, usage: Json): Json {
  const candidates = Array.isArray(chunk.candidates) ? (chunk.candidates as Json[]) : [];
  if (candidates.some((c) => c.finishReason !== undefined)) return usage;
  return { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount };
}

const frame = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

function chatStream(family: CacheUsageFamily): string {
  const head = { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'upstream-model' };
  const place = family.chatStream ?? 'own chunk';
  const finishChoice = { index: 0, delta: {}, finish_reason: 'stop', ...(place === 'choice' ? { usage: family.usage } : {}) };
  return [
    frame({ ...head, choices: [{ index: 0, delta: { role: 'assistant', content: 'Cached hello.' }, finish_reason: null }] }),
    frame({ ...head, choices: [finishChoice], ...(place === 'finish chunk' ? { usage: family.usage } : {}) }),
    place === 'own chunk' ? frame({ ...head, choices: [], usage: family.usage }) : '',
    'data: [DONE]\n\n',
  ].join('');
}

/** The family's streamed answer: its protocol's stream, with the family's `usage` where that protocol states it. */
export function streamedAnswer(family: CacheUsageFamily): string {
  if (family.upstream === 'chat') return chatStream(family);
  const encoder = codecs[family.upstream].encodeStream(ctxOf(family.upstream), { model: 'upstream-model', stream: true });
  const text = responseToEvents(answer).map((e) => encoder.push(e)).join('') + encoder.end();
  return sseEvents(text)
    .map(({ event, data }) => {
      const json = JSON.parse(data) as Json;
      // Anthropic states the counts in message_start and again, cumulative, in message_delta.
      if (json.type === 'message_start') json.message = { ...(json.message as Json), usage: family.usage };
      if (json.type === 'message_delta') json.usage = family.usage;
      if (json.type === 'response.completed') json.response = { ...(json.response as Json), usage: family.usage };
      if (family.upstream === 'gemini') json.usageMetadata = geminiChunkUsage(json, family.usage);
      return frame(json, event);
    })
    .join('');
}

export function sseEvents(text: string): SseEvent[] {
  const decoder = createSseDecoder();
  return [...decoder.push(text), ...decoder.end()];
}

// ------------------------------------------------------------------ the caller's side

export type Counts = CacheUsageFamily['expected'];

const obj = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {});
const n = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** What a caller of each protocol reads from a `usage` object, written out from each API's reference. */
export const callerCounts: Record<Protocol, (usage: Json) => Counts> = {
  chat: (u) => {
    const details = obj(u.prompt_tokens_details);
    return { input: n(u.prompt_tokens), output: n(u.completion_tokens), cacheRead: n(details.cached_tokens), cacheWrite: n(details.cache_write_tokens) };
  },
  responses: (u) => {
    const details = obj(u.input_tokens_details);
    return { input: n(u.input_tokens), output: n(u.output_tokens), cacheRead: n(details.cached_tokens), cacheWrite: n(details.cache_write_tokens) };
  },
  // Anthropic's `input_tokens` leaves the cache out: Claude Code adds the three for its context figure.
  messages: (u) => {
    const cacheRead = n(u.cache_read_input_tokens);
    const cacheWrite = n(u.cache_creation_input_tokens);
    return { input: n(u.input_tokens) + cacheRead + cacheWrite, output: n(u.output_tokens), cacheRead, cacheWrite };
  },
  // `usageMetadata`: the prompt count includes the cached part and what built-in tools fed back; the thinking is
  // counted apart from the candidates. It has no field for cache writes.
  gemini: (u) => ({
    input: n(u.promptTokenCount) + n(u.toolUsePromptTokenCount),
    output: n(u.candidatesTokenCount) + n(u.thoughtsTokenCount),
    cacheRead: n(u.cachedContentTokenCount),
    cacheWrite: 0,
  }),
};

/**
 * What a caller of `caller` can be told of `counts`: all of them, except that Gemini's `usageMetadata`
 * has no field for cache writes (Gemini's implicit cache bills none; an explicit one is created apart):
 * its callers see them inside the prompt count only.
 */
export function toldTo(caller: Protocol, counts: Counts): Counts {
  return caller === 'gemini' ? { ...counts, cacheWrite: 0 } : counts;
}

/** The `usage` a caller's stream (its SSE text) ends with, where each protocol states it. */
export const streamUsage: Record<Protocol, (sse: string) => Json> = {
  chat: (sse) => obj(dataOf(sse).filter((e) => isUsage(e.usage) || isUsage(firstChoice(e).usage)).map((e) => e.usage ?? firstChoice(e).usage).at(-1)),
  responses: (sse) => obj(obj(dataOf(sse).find((e) => e.type === 'response.completed')?.response).usage),
  // message_delta's counts are cumulative and override message_start's.
  messages: (sse) => {
    const usage: Json = {};
    for (const e of dataOf(sse)) {
      if (e.type === 'message_start') Object.assign(usage, obj(obj(e.message).usage));
      if (e.type === 'message_delta') Object.assign(usage, obj(e.usage));
    }
    return usage;
  },
  // Each chunk states the usage of the answer so far: the last one that states it is the whole.
  gemini: (sse) => obj(dataOf(sse).filter((e) => isUsage(e.usageMetadata)).at(-1)?.usageMetadata),
};

const isUsage = (v: unknown) => typeof v === 'object' && v !== null;
const firstChoice = (e: Json): Json => obj(Array.isArray(e.choices) ? e.choices[0] : undefined);

const dataOf = (sse: string): Json[] =>
  sseEvents(sse)
    .filter((e) => e.data !== '[DONE]')
    .map((e) => JSON.parse(e.data) as Json);

/** A minimal request body of each protocol, whole or streamed (a Chat stream asks for its usage). */
export const callerBodies: Record<Protocol, (stream: boolean) => Json> = {
  chat: (stream) => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) }),
  responses: (stream) => ({ model: 'm', input: 'hi', stream }),
  messages: (stream) => ({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], stream }),
  // The model and whether it streams are in the path (`models/{model}:streamGenerateContent`), not the body.
  gemini: () => ({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
};
