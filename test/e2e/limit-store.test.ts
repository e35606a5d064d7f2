/**
 * Key-group limits kept in a store that answers later or fails, through the real server and
 * the official SDKs: a client leaving while the store decides holds nothing afterwards, and
 * a store failure is a 503 in the caller's shape that leaves the gateway serving.
 */
import { connect } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import type { LimitStore } from '#src/limits/limit-store.js';
import { createMemoryLimitStore } from '#src/limits/memory-store.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { delayedLimitStore, failingLimitStore } from '../helpers/limit-stores.js';
import { CI_KEY, GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { waitFor } from '../helpers/wait-for.js';

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());
afterEach(() => upstream.reset());

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.close()));
});

/** Group `limited` (GATEWAY_KEY) holds one request at a time; group `free` (CI_KEY) has no limits; the server serves one at once. */
async function gateway(limitStore: LimitStore): Promise<TestGateway> {
  const config = {
    server: { maxConcurrentRequests: 1 },
    providers: {
      openai: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-o', retries: 0 },
      anthropic: { type: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-a', retries: 0 },
    },
    models: { 'gpt-test': { provider: 'openai' }, 'claude-test': { provider: 'anthropic' } },
    keyGroups: { limited: { keys: [GATEWAY_KEY], limits: { concurrentRequests: 1 } }, free: { keys: [CI_KEY] } },
  } as WrittenConfig;
  const gw = await startGateway(config, { limitStore });
  running.push(gw);
  return gw;
}

const openai = (gw: TestGateway, key = GATEWAY_KEY) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
const anthropic = (gw: TestGateway, key = GATEWAY_KEY) => new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
const user = [{ role: 'user' as const, content: 'hi' }];

/** Ways a client leaves while the store decides: each starts a request and returns how to leave. */
const leavers: { client: string; start: (gw: TestGateway) => { leave: () => void; settled: Promise<unknown> } }[] = [
  ...(
    [
      ['OpenAI SDK, Chat Completions', (gw, signal) => openai(gw).chat.completions.create({ model: 'gpt-test', messages: user }, { signal })],
      ['OpenAI SDK, Chat Completions streamed', (gw, signal) => openai(gw).chat.completions.create({ model: 'gpt-test', messages: user, stream: true }, { signal })],
      ['OpenAI SDK, Responses', (gw, signal) => openai(gw).responses.create({ model: 'gpt-test', input: 'hi' }, { signal })],
      ['Anthropic SDK, Messages', (gw, signal) => anthropic(gw).messages.create({ model: 'claude-test', max_tokens: 5, messages: user }, { signal })],
    ] as const satisfies readonly (readonly [string, (gw: TestGateway, signal: AbortSignal) => Promise<unknown>])[]
  ).map(([client, send]) => ({
    client,
    start: (gw: TestGateway) => {
      const controller = new AbortController();
      return { leave: () => controller.abort(), settled: send(gw, controller.signal).catch((err: unknown) => err) };
    },
  })),
  {
    // Only headers and part of the body sent: the gateway must not wait for the rest once the client is gone.
    client: 'raw HTTP, body half sent',
    start: (gw) => {
      const socket = connect(Number(new URL(gw.url).port), '127.0.0.1');
      const body = JSON.stringify({ model: 'gpt-test', messages: user });
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${GATEWAY_KEY}\r\n` +
          `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      );
      const settled = new Promise((resolve) => socket.on('close', resolve));
      socket.on('error', () => {});
      return { leave: () => socket.destroy(), settled };
    },
  },
];

describe('a limit store that answers later', () => {
  for (const { client, start } of leavers) {
    it(`${client}: leaving while the store decides ends the admission it then grants, and nothing reaches the provider`, async () => {
      const store = delayedLimitStore(createMemoryLimitStore(), 150);
      const gw = await gateway(store);
      const request = start(gw);
      await waitFor(() => store.deciding === 1, 'the store to be asked');
      request.leave();
      await request.settled;
      await waitFor(() => store.deciding === 0 && store.admitted === 1, 'the store to answer');
      // Ended once, on arrival.
      await waitFor(() => store.ended === 1, 'the admission to be ended');
      expect(upstream.received).toHaveLength(0);

      // The group's one place and the server's one place are free: the next request is served.
      const next = await openai(gw).chat.completions.create({ model: 'gpt-test', messages: user });
      expect(next.choices[0]?.message.content).toBeTruthy();
      expect(upstream.received).toHaveLength(1);
      await waitFor(() => store.ended === 2, 'the next admission to be ended');
      expect(store.admitted).toBe(2);
    });
  }
});

describe('a limit store that fails', () => {
  for (const how of ['reject', 'throw'] as const) {
    it(`${how}: 503 (529 for Anthropic callers) saying the limit store is unavailable, and the gateway keeps serving`, async () => {
      const store = failingLimitStore(how);
      const gw = await gateway(store);

      const chat = await openai(gw).chat.completions.create({ model: 'gpt-test', messages: user }).catch((err: unknown) => err);
      expect(chat).toBeInstanceOf(OpenAI.APIError);
      const chatError = chat as InstanceType<typeof OpenAI.APIError>;
      expect(chatError.status).toBe(503);
      expect(chatError.code).toBe('limit_store_unavailable');
      expect(chatError.message).toMatch(/limit store is unavailable/);
      expect(chatError.headers?.get('retry-after')).toBe('1');

      const messages = await anthropic(gw).messages.create({ model: 'claude-test', max_tokens: 5, messages: user }).catch((err: unknown) => err);
      expect(messages).toBeInstanceOf(Anthropic.APIError);
      const messagesError = messages as InstanceType<typeof Anthropic.APIError>;
      expect(messagesError.status).toBe(529);
      expect(messagesError.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: expect.stringMatching(/limit store is unavailable/) } });

      expect(store.asked).toBe(2);
      expect(upstream.received).toHaveLength(0);
      // The store's own message is for the operator's log, not the client.
      expect(chatError.message).not.toMatch(/ECONNREFUSED/);
      expect(gw.output.join('')).toMatch(/the limit store failed: connect ECONNREFUSED 127\.0\.0\.1:6379/);

      // The server's one place was given back: a group without limits is served at maxConcurrentRequests 1.
      const free = await openai(gw, CI_KEY).chat.completions.create({ model: 'gpt-test', messages: user });
      expect(free.choices[0]?.message.content).toBeTruthy();
    });
  }
});
