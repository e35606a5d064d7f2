/**
 * Each caller protocol's official SDK, as the suite drives it. The table is keyed by every protocol, so
 * a protocol added to the list does not type-check here until it has a caller.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI, type GenerateContentParameters, type GenerateContentResponse } from '@google/genai';
import OpenAI from 'openai';
import type { Protocol } from '#src/protocols/types.js';
import { codecs } from '#src/translate/codecs.js';
import { GATEWAY_KEY } from '../helpers/start-gateway.js';
import { contextFor } from './context.js';
import type { Json } from '#src/translate/types.js';
import type * as Ir from '#src/translate/ir.js';

export interface CallerClient {
  /**
   * Sends `request` to the gateway (its `model` the gateway's model name) with the SDK, whole or
   * streamed; a stream is folded by the SDK's own helper. Returns what the SDK parsed, as plain JSON.
   */
  send(gatewayUrl: string, request: Ir.Request, stream: boolean): Promise<Json>;
  /** What the SDK parsed, read back into the IR by this protocol's codec. */
  read(parsed: Json): Ir.Response;
  /** The SDK's error for a 429 answer. */
  readonly RateLimitError: abstract new (...args: never[]) => Error;
}

/** The SDK calls for one protocol, given the request already in its wire shape (and its model, for a protocol that names it in the path). */
interface SdkCalls {
  whole(gatewayUrl: string, body: Json, model: string): Promise<unknown>;
  streamed(gatewayUrl: string, body: Json, model: string): Promise<unknown>;
  readonly RateLimitError: CallerClient['RateLimitError'];
}

// The SDK's parsed objects are class instances with getters; the codecs read plain JSON.
const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as Json;

function sdkCaller(protocol: Protocol, sdk: SdkCalls): CallerClient {
  return {
    async send(gatewayUrl, request, stream) {
      const body = codecs[protocol].encodeRequest({ ...request, stream }, { ...contextFor(protocol), upstreamModel: request.model });
      return plain(await (stream ? sdk.streamed(gatewayUrl, body, request.model) : sdk.whole(gatewayUrl, body, request.model)));
    },
    read: (parsed) => codecs[protocol].decodeResponse(parsed, contextFor(protocol)),
    RateLimitError: sdk.RateLimitError,
  };
}

// No retries: a 429 reaches the test as the SDK's error, not as a second request.
const openai = (gatewayUrl: string) => new OpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
const anthropic = (gatewayUrl: string) => new Anthropic({ baseURL: gatewayUrl, apiKey: GATEWAY_KEY, maxRetries: 0 });
// The SDK retries only when given retryOptions; its API version is its default, as a user's would be.
const google = (gatewayUrl: string) => new GoogleGenAI({ apiKey: GATEWAY_KEY, httpOptions: { baseUrl: gatewayUrl } });

/**
 * A Gemini REST body as the SDK's parameters: the SDK takes the generation config's fields, the system
 * instruction, the tools and the tool config together in `config`, and writes the REST body back from them.
 */
export function geminiParameters(model: string, body: Json): GenerateContentParameters {
  const { contents, generationConfig, ...rest } = body;
  return { model, contents: contents as never, config: { ...(generationConfig as Json | undefined), ...rest } as never };
}

/**
 * The SDK's 429: its ApiError carries the status, not a class of its own (and sets its own prototype,
 * so it cannot be subclassed): it is rethrown as this, message and status kept.
 */
export class GeminiRateLimitError extends Error {
  readonly status = 429;
}

async function geminiCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError && err.status === 429) throw new GeminiRateLimitError(err.message, { cause: err });
    throw err;
  }
}

/**
 * A Gemini stream folded into one answer, as an SDK user who keeps the turn does: the chunks' parts in
 * order, a text part's pieces joined until one carries a signature (which ends the part it is on), the
 * finish and the usage of the chunk that has them. The SDK has no helper of its own for this.
 */
export async function foldGeminiStream(stream: AsyncGenerator<GenerateContentResponse>): Promise<Json> {
  const parts: Json[] = [];
  let last: Json = {};
  let finishReason: unknown;
  let usageMetadata: unknown;
  for await (const chunk of stream) {
    const { sdkHttpResponse: _headers, ...json } = plain(chunk);
    last = json;
    const candidate = (json.candidates as Json[] | undefined)?.[0];
    if (candidate?.finishReason !== undefined) finishReason = candidate.finishReason;
    if (json.usageMetadata !== undefined) usageMetadata = json.usageMetadata;
    for (const part of ((candidate?.content as Json | undefined)?.parts as Json[] | undefined) ?? []) {
      const prev = parts.at(-1);
      const joins =
        typeof part.text === 'string' && typeof prev?.text === 'string' && prev.thoughtSignature === undefined && Boolean(prev.thought) === Boolean(part.thought);
      if (joins) {
        prev!.text = String(prev!.text) + part.text;
        if (part.thoughtSignature !== undefined) prev!.thoughtSignature = part.thoughtSignature;
      } else {
        parts.push({ ...part });
      }
    }
  }
  return {
    candidates: [{ content: { role: 'model', parts }, ...(finishReason !== undefined ? { finishReason } : {}), index: 0 }],
    ...(usageMetadata !== undefined ? { usageMetadata } : {}),
    ...(last.modelVersion !== undefined ? { modelVersion: last.modelVersion } : {}),
    ...(last.responseId !== undefined ? { responseId: last.responseId } : {}),
  } as Json;
}

// The bodies are the codecs' output, which the SDKs' request types do not know; `as never` hands them over.
export const callers: Record<Protocol, CallerClient> = {
  chat: sdkCaller('chat', {
    whole: (url, body) => openai(url).chat.completions.create({ ...body, stream: false } as never),
    streamed: (url, body) =>
      openai(url)
        .chat.completions.stream({ ...body, stream: true, stream_options: { include_usage: true } } as never)
        .finalChatCompletion(),
    RateLimitError: OpenAI.RateLimitError,
  }),
  responses: sdkCaller('responses', {
    whole: (url, body) => openai(url).responses.create({ ...body, stream: false } as never),
    streamed: (url, body) => openai(url).responses.stream({ ...body, stream: true } as never).finalResponse(),
    RateLimitError: OpenAI.RateLimitError,
  }),
  messages: sdkCaller('messages', {
    whole: (url, body) => anthropic(url).messages.create({ ...body, stream: false } as never),
    streamed: (url, body) => anthropic(url).messages.stream(body as never).finalMessage(),
    RateLimitError: Anthropic.RateLimitError,
  }),
  // The SDK user runs the functions the model calls and sends their results back (no automatic calling).
  gemini: sdkCaller('gemini', {
    whole: (url, body, model) =>
      geminiCall(async () => {
        const { sdkHttpResponse: _headers, ...json } = plain(await google(url).models.generateContent(geminiParameters(model, body)));
        return json;
      }),
    streamed: (url, body, model) => geminiCall(async () => foldGeminiStream(await google(url).models.generateContentStream(geminiParameters(model, body)))),
    RateLimitError: GeminiRateLimitError,
  }),
};
