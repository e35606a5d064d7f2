/**
 * An upstream stream that breaks off in the middle of an event: the client must get the whole
 * events before it and then the gateway's error event, never half an event with the error glued
 * on (which the SDKs read as a JSON SyntaxError, or, after half a comment line, not at all). The
 * upstream connection is cut at every byte of a comment line and the event after it, for each protocol, passthrough and
 * translated, read by the official SDKs and raw.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Behaviour } from '../helpers/received.js';
import { GATEWAY_KEY, startGateway, testConfig, withoutRetries, type TestGateway } from '../helpers/start-gateway.js';
import { framesFor } from '../robustness/upstream-scripts.js';

let upstream: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gw = await startGateway(withoutRetries(testConfig(upstream.url)));
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

/** The upstream's stream, with a comment line between its events (a cut inside one used to lose the error). */
const streamFor = (req: Parameters<Behaviour>[0]) => {
  const frames = framesFor(req);
  return Buffer.from([frames[0], ': keep-alive\n\n', ...frames.slice(1)].join(''));
};

/** Writes the first `at` bytes of the stream, then drops the connection. */
const cutAt =
  (at: number): Behaviour =>
  (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(streamFor(req).subarray(0, at), () => res.destroy());
  };

type Caller = 'chat' | 'responses' | 'messages';
const CASES: { caller: Caller; model: string; way: string; upstreamPath: string }[] = [
  { caller: 'chat', model: 'gpt-test', way: 'passthrough', upstreamPath: '/v1/chat/completions' },
  { caller: 'chat', model: 'claude-test', way: 'translated', upstreamPath: '/v1/messages' },
  { caller: 'responses', model: 'gpt-test', way: 'passthrough', upstreamPath: '/v1/responses' },
  { caller: 'responses', model: 'claude-test', way: 'translated', upstreamPath: '/v1/messages' },
  { caller: 'messages', model: 'claude-test', way: 'passthrough', upstreamPath: '/v1/messages' },
  { caller: 'messages', model: 'gpt-test', way: 'translated', upstreamPath: '' },
];

const openai = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
const anthropic = () => new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });

/** Reads the stream with the caller's SDK; resolves with what it threw. */
async function sdkError(caller: Caller, model: string): Promise<unknown> {
  try {
    if (caller === 'chat') {
      const stream = await openai().chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], stream: true });
      for await (const _ of stream);
    } else if (caller === 'responses') {
      const stream = await openai().responses.create({ model, input: 'hi', stream: true });
      for await (const _ of stream);
    } else {
      const stream = await anthropic().messages.create({ model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], stream: true });
      for await (const _ of stream);
    }
  } catch (err) {
    return err;
  }
  return undefined;
}

async function raw(caller: Caller, model: string): Promise<string> {
  const [path, headers, body] =
    caller === 'messages'
      ? ['/v1/messages', { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' }, { model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], stream: true }]
      : caller === 'chat'
        ? ['/v1/chat/completions', { authorization: `Bearer ${GATEWAY_KEY}` }, { model, messages: [{ role: 'user', content: 'hi' }], stream: true }]
        : ['/v1/responses', { authorization: `Bearer ${GATEWAY_KEY}` }, { model, input: 'hi', stream: true }];
  const res = await fetch(gw.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return res.text();
}

/** Every event whole: each data line JSON, the error last and in the protocol's own form. */
function expectWholeEvents(text: string, caller: Caller): void {
  expect(text.endsWith('\n\n')).toBe(true);
  const blocks = text.slice(0, -2).split('\n\n');
  for (const block of blocks) {
    for (const line of block.split('\n')) {
      expect(line).toMatch(/^(event: [\w.]+|data: .*|: keep-alive)$/);
      if (line.startsWith('data: ') && line !== 'data: [DONE]') expect(() => JSON.parse(line.slice(6))).not.toThrow();
    }
  }
  // The error ends the stream (Responses follows it with response.failed, which carries it too).
  const first = blocks.findIndex((b) => b.includes('broke off'));
  expect(first).toBeGreaterThanOrEqual(0);
  expect(blocks.slice(first).every((b) => b.includes('broke off'))).toBe(true);
  expect(blocks.length - first).toBe(caller === 'responses' ? 2 : 1);
  if (caller === 'chat') expect(blocks[first]).toMatch(/^data: \{"error":/);
  else expect(blocks[first]).toMatch(/^event: error\ndata: /);
}

/** Byte positions from the start of the comment line to the end of the event after it. */
function cutPositions(stream: Buffer): number[] {
  const first = stream.indexOf(': keep-alive');
  let end = first;
  for (let i = 0; i < 2; i++) end = stream.indexOf('\n\n', end) + 2;
  return Array.from({ length: end - first + 1 }, (_, i) => first + i);
}

describe('a stream cut at any byte ends with the gateway error, after whole events only', () => {
  for (const { caller, model, way, upstreamPath } of CASES) {
    it(`${caller} ${way}`, { timeout: 120_000 }, async () => {
      // The stream the upstream would send this case, to know its length.
      upstream.once(cutAt(0));
      await raw(caller, model);
      const sent = upstream.last();
      if (upstreamPath) expect(sent.url).toBe(upstreamPath);
      const positions = cutPositions(streamFor(sent));
      expect(positions.length).toBeGreaterThan(100);

      for (const at of positions) {
        upstream.once(cutAt(at));
        const err = await sdkError(caller, model);
        const Sdk = caller === 'messages' ? Anthropic.APIError : OpenAI.APIError;
        expect(err, `cut at ${at}: ${String(err)}`).toBeInstanceOf(Sdk);
        expect((err as Error).message, `cut at ${at}`).toMatch(/broke off/);

        upstream.once(cutAt(at));
        expectWholeEvents(await raw(caller, model), caller);
      }
      // Still serving.
      const ok = await raw(caller, model);
      expect(ok).not.toContain('broke off');
    });
  }
});
