/**
 * The fake upstream's side, per protocol: the provider entry that points the gateway at it speaking
 * that protocol, and how it answers. Keyed by every protocol, like the callers.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { PROTOCOLS, type Protocol } from '#src/protocols/types.js';
import { codecs } from '#src/translate/codecs.js';
import { responseToEvents } from '#src/translate/common/ir-stream.js';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '#src/translate/types.js';
import { checkGenerateRequest, GoogleRefusal, googleError } from '../helpers/fake-gemini.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';
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
  gemini: {
    provider: (url) => ({ type: 'gemini', baseUrl: `${url}/v1beta`, apiKey: 'gemini-test-key', retries: 0 }),
    rateLimited: { error: { code: 429, message: 'Too many requests, slow down', status: 'RESOURCE_EXHAUSTED' } },
  },
};

/** A request the fake upstream received: its body, and its URL (which Gemini's calls need). */
type Call = Pick<Received, 'json'> & Partial<Pick<Received, 'url'>>;

/** The model and stream flag of a call the fake upstream received: in the body, or (Gemini) in the path. */
export function callOf(upstream: Protocol, req: Call): { readonly model: string; readonly stream: boolean } {
  if (upstream === 'gemini') {
    if (req.url === undefined) throw new Error('a Gemini call is read from its URL');
    const path = /\/models\/([^/:]+):([A-Za-z]+)/.exec(new URL(req.url, 'http://upstream').pathname);
    return { model: decodeURIComponent(path?.[1] ?? ''), stream: path?.[2] === 'streamGenerateContent' };
  }
  const body = req.json as Json;
  return { model: String(body.model), stream: body.stream === true };
}

/** What the fake upstream received, read back into the IR by the upstream protocol's codec. */
export function receivedRequest(upstream: Protocol, req: Call): Ir.Request {
  const { model, stream } = callOf(upstream, req);
  return codecs[upstream].decodeRequest(req.json as Json, { ...contextFor(upstream), requestedModel: model, stream });
}

/** A fake upstream behaviour: answer `answer` in protocol `upstream`, streamed when the request asks. */
export function answerWith(upstream: Protocol, answer: Ir.Response) {
  return (req: Call, res: ServerResponse) => {
    const body = req.json as Json;
    const { model, stream } = callOf(upstream, req);
    // Gemini is strict about what it takes (fake-gemini.ts): a request it would refuse is refused here too,
    // a function call sent back without a signature among them (history Gemini did not give needs Google's stand-in).
    if (upstream === 'gemini') {
      try {
        checkGenerateRequest(body);
      } catch (err) {
        if (!(err instanceof GoogleRefusal)) throw err;
        googleError(res, err);
        return;
      }
    }
    const ctx = { ...contextFor(upstream), requestedModel: model, stream };
    const codec = codecs[upstream];
    if (stream) {
      const encoder = codec.encodeStream(ctx, body);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(responseToEvents(answer).map((e) => encoder.push(e)).join('') + encoder.end());
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(codec.encodeResponse(answer, ctx, body)));
    }
  };
}

/** The gateway's model served by the provider speaking `upstream`. */
export const modelOn = (upstream: Protocol) => `on-${upstream}`;

export interface ProtocolGateway {
  readonly upstream: FakeUpstream;
  readonly gateway: TestGateway;
}

/**
 * For a suite: one fake upstream, and a gateway with a provider per protocol pointed at it (model
 * `modelOn(p)`), started before the suite's tests and closed after; the upstream is reset before each
 * test, so a behaviour left queued by a failed test cannot answer the next one.
 */
export function protocolGateway(): ProtocolGateway {
  let upstream: FakeUpstream | undefined;
  let gateway: TestGateway | undefined;
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await startGateway({
      providers: Object.fromEntries(PROTOCOLS.map((p) => [p, upstreams[p].provider(upstream!.url)])),
      models: Object.fromEntries(PROTOCOLS.map((p) => [modelOn(p), { provider: p, upstreamModel: 'upstream-model' }])),
      keyGroups: { dev: { keys: [GATEWAY_KEY] } },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });
  beforeEach(() => upstream?.reset());
  return {
    get upstream() {
      if (!upstream) throw new Error('the suite has not started');
      return upstream;
    },
    get gateway() {
      if (!gateway) throw new Error('the suite has not started');
      return gateway;
    },
  };
}
