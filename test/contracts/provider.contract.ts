/**
 * What every provider kind must do, as one suite run once per kind against that kind's fake
 * upstream on loopback (`providers.test.ts` calls `runProviderContract` for each). The provider
 * is built the way the gateway builds it: its config entry through `parseConfig`, then
 * `createProviders`. Error answers echo the credential back, so that a leak would show.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '#src/config/parse.js';
import type { WrittenConfig } from '#src/config/schema.js';
import { GatewayError } from '#src/errors.js';
import type { Protocol } from '#src/protocols/types.js';
import { CallAbort } from '#src/providers/abort.js';
import { createProviders } from '#src/providers/registry.js';
import type { Provider, UpstreamResponse } from '#src/providers/types.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Behaviour } from '../helpers/received.js';

export interface ProviderContract {
  /** The provider's entry in `providers`, pointed at `origin` (the fake's http://127.0.0.1:port). */
  readonly entry: (origin: string) => Record<string, unknown>;
  /** How the kind's real API answers a correct request (the fake's normal behaviour). */
  readonly upstream: Behaviour;
  /** A protocol the kind speaks natively, and the path its create call must arrive at (none for a kind that answers locally). */
  readonly protocol: Protocol;
  readonly path?: string;
  /** The credential in the entry, which must never appear in an error's text. */
  readonly secret: string;
  /** Names of tests this kind does not run, each for a stated reason. */
  readonly skip?: readonly string[];
}

const REQUESTS: Record<Protocol, Record<string, unknown>> = {
  chat: { model: 'deployment-1', messages: [{ role: 'user', content: 'hi' }] },
  responses: { model: 'deployment-1', input: 'hi' },
  messages: { model: 'deployment-1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
  // Gemini names the model in the URL (the request's `model`) and streams by its method: the body says neither.
  gemini: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
};

/** Where each protocol's answer names its model. */
const ANSWER_MODEL: Record<Protocol, string> = { chat: 'model', responses: 'model', messages: 'model', gemini: 'modelVersion' };

async function text(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** A port on loopback that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An upstream's error status, the caller's error kind and status it must come to. */
const ERROR_ANSWERS = [
  [400, 'invalid_request', 400],
  [404, 'not_found', 404],
  [429, 'rate_limit', 429],
  [500, 'upstream_error', 500],
  [503, 'overloaded', 503],
  // A refused provider credential is the operator's problem: the caller sees a 502, not a bad key of its own.
  [401, 'upstream_error', 502],
] as const;

const errorTitle = (status: number, kind: string, callerStatus: number) =>
  `an HTTP ${status} answer maps to the caller's ${kind} (${callerStatus}), without the credential`;

const UNREACHABLE = 'an unreachable upstream maps to upstream_unavailable, without the credential';
const NO_HEADERS = 'an upstream that sends no headers in time maps to timeout, without the credential';

/** The tests about an upstream's answers and failures: what a kind that answers locally skips. */
export const UPSTREAM_FAILURE_TESTS: readonly string[] = [
  ...ERROR_ANSWERS.map(([status, kind, callerStatus]) => errorTitle(status, kind, callerStatus)),
  UNREACHABLE,
  NO_HEADERS,
];

export function runProviderContract(name: string, contract: ProviderContract): void {
  const test = (title: string, body: () => Promise<void>) => (contract.skip?.includes(title) ? it.skip : it)(title, body);
  let fake: FakeUpstream;
  const opened: Provider[] = [];

  /** The provider for `entry`, built as the gateway builds it. */
  const build = (entry: Record<string, unknown>): Provider => {
    const written = { providers: { p: entry }, models: { m: { provider: 'p' } } } as unknown as WrittenConfig;
    const provider = createProviders(parseConfig(written, { env: {} })).get('p')!;
    opened.push(provider);
    return provider;
  };
  const send = (provider: Provider, stream: boolean): Promise<UpstreamResponse> => {
    const json = { ...REQUESTS[contract.protocol], ...(stream && contract.protocol !== 'gemini' ? { stream: true } : {}) };
    const abort = new CallAbort();
    return provider.send({
      protocol: contract.protocol,
      operation: 'create',
      headers: { 'content-type': 'application/json', 'user-agent': 'contract/1' },
      body: Buffer.from(JSON.stringify(json)),
      json,
      model: 'deployment-1',
      stream,
      abort,
      get signal() {
        return abort.signal;
      },
    });
  };
  /** The error a caller would see for `answer`, by the provider's own mapping. */
  const callerError = async (provider: Provider, answer: UpstreamResponse): Promise<GatewayError> => {
    const err = provider.toError!(answer.status, answer.headers, await text(answer.body));
    expect(err).toBeInstanceOf(GatewayError);
    return err;
  };

  describe(`Provider contract: ${name}`, () => {
    beforeAll(async () => {
      fake = await startFakeUpstream();
    });
    afterAll(async () => {
      await Promise.all(opened.map((p) => p.close()));
      await fake.close();
    });

    test('sends a request and gets the whole answer', async () => {
      fake.reset();
      fake.always(contract.upstream);
      const answer = await send(build(contract.entry(fake.url)), false);
      const body = await text(answer.body);
      expect(answer.status, body).toBe(200);
      expect(JSON.parse(body)).toMatchObject({ [ANSWER_MODEL[contract.protocol]]: 'deployment-1' });
      if (contract.path !== undefined) expect(fake.last().url).toBe(contract.path);
    });

    test('streams the answer as server-sent events', async () => {
      fake.reset();
      fake.always(contract.upstream);
      const answer = await send(build(contract.entry(fake.url)), true);
      const body = await text(answer.body);
      expect(answer.status, body).toBe(200);
      expect(String(answer.headers['content-type'])).toContain('text/event-stream');
      expect(body.match(/^data: /gm)?.length ?? 0).toBeGreaterThan(2);
      if (contract.path !== undefined) expect(fake.last().url).toBe(contract.path);
    });

    // Each error answer echoes the credential it was sent, as some servers do.
    for (const [status, kind, callerStatus] of ERROR_ANSWERS) {
      test(errorTitle(status, kind, callerStatus), async () => {
        fake.reset();
        fake.always((_req, res) => sendJson(res, status, { error: { message: `no good with key ${contract.secret}`, code: String(status) } }));
        const provider = build(contract.entry(fake.url));
        const err = await callerError(provider, await send(provider, false));
        expect({ kind: err.kind, status: err.status }).toEqual({ kind, status: callerStatus });
        expect(err.message).not.toContain(contract.secret);
        expect(String(err.cause)).not.toContain(contract.secret);
      });
    }

    test(UNREACHABLE, async () => {
      const port = await closedPort();
      const err = await send(build(contract.entry(`http://127.0.0.1:${port}`)), false).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as GatewayError).kind).toBe('upstream_unavailable');
      expect((err as GatewayError).message).toContain('ECONNREFUSED');
      expect((err as GatewayError).message).not.toContain(contract.secret);
    });

    test(NO_HEADERS, async () => {
      fake.reset();
      fake.always(() => undefined);
      const entry = { ...contract.entry(fake.url), timeouts: { headersMs: 100 } };
      for (const stream of [false, true]) {
        const err = await send(build(entry), stream).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(GatewayError);
        expect((err as GatewayError).kind).toBe('timeout');
        expect((err as GatewayError).message).not.toContain(contract.secret);
      }
    });

    test('after the failures, a normal request succeeds', async () => {
      fake.reset();
      fake.always(contract.upstream);
      const answer = await send(build(contract.entry(fake.url)), false);
      expect(answer.status).toBe(200);
      await text(answer.body);
    });
  });
}
