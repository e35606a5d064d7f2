/**
 * `Gateway.reload` on the real gateway: a request keeps the state it arrived under, new
 * requests get the new one, and replaced providers close only after their last request.
 */
import { Client, request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '#src/config/parse.js';
import type { WrittenConfig } from '#src/config/schema.js';
import { GatewayError } from '#src/errors.js';
import { chatFrames } from '../helpers/canned.js';
import { startFakeUpstream, writeSlowly, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';

let a: FakeUpstream;
let b: FakeUpstream;
beforeAll(async () => {
  [a, b] = await Promise.all([startFakeUpstream(), startFakeUpstream()]);
});
afterAll(() => Promise.all([a.close(), b.close()]));
beforeEach(() => {
  a.reset();
  b.reset();
  // Each upstream names itself in `model`, so a caller can tell who answered.
  a.always(slowStream('from-a', 60));
  b.always(slowStream('from-b', 10));
});

function slowStream(model: string, gapMs: number) {
  return async (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    await writeSlowly(res, chatFrames(model, false), gapMs);
    res.end();
  };
}

const written = (upstreamUrl: string): WrittenConfig => ({
  providers: { up: { type: 'openai-compatible', baseUrl: `${upstreamUrl}/v1` } },
  models: { m: { provider: 'up' } },
  keyGroups: { dev: { keys: [GATEWAY_KEY] } },
});

/** Starts a streaming chat call; `text` resolves with the whole SSE body. */
async function startStream(gw: TestGateway) {
  const res = await request(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.statusCode, text: res.body.text() };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('Gateway.reload', () => {
  it('finishes an in-flight stream on the old provider, sends new requests to the new one, then closes the old', async () => {
    const gw = await startGateway(written(a.url));
    try {
      const first = await startStream(gw);
      expect(first.status).toBe(200);
      expect(a.received).toHaveLength(1);

      const next = parseConfig(written(b.url), { env: {} });
      const replaced = gw.gateway.reload(next);
      expect(replaced.inFlight).toBe(1);
      expect(gw.gateway.state.config).toBe(next);
      let retired = false;
      void replaced.retired.then(() => (retired = true));

      const second = await startStream(gw);
      expect(await second.text).toContain('"model":"from-b"');
      expect(b.received).toHaveLength(1);
      // The old stream is still running (six frames, 60 ms apart), so the old providers stay open.
      expect(retired).toBe(false);

      const firstText = await first.text;
      expect(firstText).toContain('"model":"from-a"');
      expect(firstText).toContain('data: [DONE]');
      expect(await a.received[0]!.aborted).toBe(false);
      await within(replaced.retired, 2000, 'the old state to retire');

      // Closed for real: the old provider refuses new work, the new one is untouched.
      const old = replaced.previous.providers.get('up')!;
      const send = old.send({
        protocol: 'chat',
        operation: 'create',
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{}'),
        json: {},
        signal: new AbortController().signal,
      });
      await expect(send).rejects.toBeInstanceOf(GatewayError);
      expect(a.received).toHaveLength(1);
      expect(await (await startStream(gw)).text).toContain('"model":"from-b"');
    } finally {
      await gw.close();
    }
  });

  it('retires an idle state at once, and each of several states after its own last request', async () => {
    const gw = await startGateway(written(a.url));
    try {
      const idle = gw.gateway.reload(parseConfig(written(a.url), { env: {} }));
      expect(idle.inFlight).toBe(0);
      await within(idle.retired, 1000, 'the idle state to retire');

      const onA = await startStream(gw);
      const toB = gw.gateway.reload(parseConfig(written(b.url), { env: {} }));
      const onB = await startStream(gw);
      const backToA = gw.gateway.reload(parseConfig(written(a.url), { env: {} }));
      expect([toB.inFlight, backToA.inFlight]).toEqual([1, 1]);

      expect(await onB.text).toContain('"model":"from-b"');
      await within(backToA.retired, 1000, 'the state of the B request to retire');
      let aRetired = false;
      void toB.retired.then(() => (aRetired = true));
      // The wait is the test: A's state may not retire while a request on it is still streaming.
      await new Promise((r) => setTimeout(r, 20));
      expect(aRetired).toBe(false);

      expect(await onA.text).toContain('"model":"from-a"');
      await within(toB.retired, 1000, 'the state of the A request to retire');
    } finally {
      await gw.close();
    }
  });

  it('refuses a key the new config dropped, on a connection that authenticated with it before', async () => {
    const gw = await startGateway(written(a.url));
    // One connection, kept alive across both requests.
    const client = new Client(gw.url, { pipelining: 1 });
    let connections = 0;
    client.on('connect', () => connections++);
    const call = () =>
      client.request({
        path: '/v1/models',
        method: 'GET',
        headers: { authorization: `Bearer ${GATEWAY_KEY}` },
      });
    try {
      const before = await call();
      await before.body.dump();
      expect(before.statusCode).toBe(200);
      gw.gateway.reload(parseConfig({ ...written(a.url), keyGroups: { dev: { keys: ['mg-someone-else-0123456789'] } } }, { env: {} }));
      const after = await call();
      expect(after.statusCode).toBe(401);
      expect(((await after.body.json()) as { error: { message: string } }).error.message).toMatch(/^Invalid API key/);
      expect(connections).toBe(1);
    } finally {
      await client.close();
      await gw.close();
    }
  });

  it('closes the providers of a state still draining when the gateway closes', async () => {
    const gw = await startGateway(written(a.url));
    a.reset();
    a.always(slowStream('from-a', 2000));
    const stream = await startStream(gw);
    const replaced = gw.gateway.reload(parseConfig(written(b.url), { env: {} }));
    void stream.text.catch(() => undefined);
    // 100 ms of grace, then the stream is cut and every provider closed.
    await gw.gateway.close(100);
    await within(replaced.retired, 1000, 'the draining state to close with the gateway');
  });
});
