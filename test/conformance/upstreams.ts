/**
 * The fake upstream's side, per protocol: the provider entry that points the gateway at it speaking
 * that protocol, and how it answers. Keyed by every protocol, like the callers.
 */
import type { ServerResponse } from 'node:http';
import type { Protocol } from '#src/protocols/types.js';
import { codecs } from '#src/translate/codecs.js';
import { responseToEvents } from '#src/translate/common/ir-stream.js';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '#src/translate/types.js';
import type { startGateway } from '../helpers/start-gateway.js';
import { contextFor } from './context.js';

type ProviderEntry = Parameters<typeof startGateway>[0]['providers'][string];

interface UpstreamSide {
  /** A provider speaking this protocol at `upstreamUrl`. No retries: the error cases check how one upstream error is translated. */
  provider(upstreamUrl: string): ProviderEntry;
  /** A 429's body in this protocol's error shape. */
  readonly rateLimited: Json;
}

const openaiRateLimited = { error: { message: 'Too many requests, slow down', type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null } };

export const upstreams: Record<Protocol, UpstreamSide> = {
  chat: {
    provider: (url) => ({ type: 'openai-compatible', baseUrl: `${url}/v1`, retries: 0 }),
    rateLimited: openaiRateLimited,
  },
  responses: {
    provider: (url) => ({ type: 'openai-compatible', baseUrl: `${url}/v1`, protocols: ['responses'], retries: 0 }),
    rateLimited: openaiRateLimited,
  },
  messages: {
    provider: (url) => ({ type: 'anthropic', baseUrl: url, apiKey: 'sk-ant-test', retries: 0 }),
    rateLimited: { type: 'error', error: { type: 'rate_limit_error', message: 'Too many requests, slow down' } },
  },
};

/** A fake upstream behaviour: answer `answer` in protocol `upstream`, streamed when the request asks. */
export function answerWith(upstream: Protocol, answer: Ir.Response) {
  return (req: { json: unknown }, res: ServerResponse) => {
    const body = req.json as Json;
    const ctx = { ...contextFor(upstream), requestedModel: String(body.model) };
    const codec = codecs[upstream];
    if (body.stream === true) {
      const encoder = codec.encodeStream(ctx, body);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(responseToEvents(answer).map((e) => encoder.push(e)).join('') + encoder.end());
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(codec.encodeResponse(answer, ctx, body)));
    }
  };
}
