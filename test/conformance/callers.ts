/**
 * Each caller protocol's official SDK, as the suite drives it. The table is keyed by every protocol, so
 * a protocol added to the list does not type-check here until it has a caller.
 */
import Anthropic from '@anthropic-ai/sdk';
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

/** The SDK calls for one protocol, given the request already in its wire shape. */
interface SdkCalls {
  whole(gatewayUrl: string, body: Json): Promise<unknown>;
  streamed(gatewayUrl: string, body: Json): Promise<unknown>;
  readonly RateLimitError: CallerClient['RateLimitError'];
}

// The SDK's parsed objects are class instances with getters; the codecs read plain JSON.
const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as Json;

function sdkCaller(protocol: Protocol, sdk: SdkCalls): CallerClient {
  return {
    async send(gatewayUrl, request, stream) {
      const body = codecs[protocol].encodeRequest({ ...request, stream }, { ...contextFor(protocol), upstreamModel: request.model });
      return plain(await (stream ? sdk.streamed(gatewayUrl, body) : sdk.whole(gatewayUrl, body)));
    },
    read: (parsed) => codecs[protocol].decodeResponse(parsed, contextFor(protocol)),
    RateLimitError: sdk.RateLimitError,
  };
}

// No retries: a 429 reaches the test as the SDK's error, not as a second request.
const openai = (gatewayUrl: string) => new OpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
const anthropic = (gatewayUrl: string) => new Anthropic({ baseURL: gatewayUrl, apiKey: GATEWAY_KEY, maxRetries: 0 });

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
};
