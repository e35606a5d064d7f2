/**
 * Upstreams that compress their answers although the gateway asks for none: gzip, br and deflate
 * are decoded, so the client gets the answer uncompressed (with no stale content-encoding or
 * content-length), passthrough and translated, streaming and not; an error answer keeps its
 * message; an encoding the gateway cannot read is a clear 502; and a small compressed body that
 * decodes past `server.maxResponseBytes` (a zip bomb) is stopped at the limit.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ServerResponse } from 'node:http';
import { constants, createBrotliCompress, createDeflate, createGzip, gzipSync, type Gzip } from 'node:zlib';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANNED_TEXT, cannedReply, chatFrames, messageFrames } from '../helpers/canned.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Behaviour } from '../helpers/received.js';
import { GATEWAY_KEY, startGateway, testConfig, withoutRetries, type TestGateway } from '../helpers/start-gateway.js';
import { upstreamProtocol } from '../robustness/upstream-scripts.js';

const LIMIT = 64 * 1024;

let upstream: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gw = await startGateway(withoutRetries(testConfig(upstream.url, { server: { maxResponseBytes: LIMIT } })));
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

type Encoding = 'gzip' | 'br' | 'deflate';
const compressor = (encoding: Encoding): Gzip =>
  (encoding === 'gzip' ? createGzip() : encoding === 'br' ? createBrotliCompress() : createDeflate()) as Gzip;

/** Writes `status`, `headers` and `body` compressed, in two flushed parts (so a stream arrives as it goes). */
function writeCompressed(res: ServerResponse, encoding: Encoding, status: number, headers: Record<string, string>, body: string): void {
  res.writeHead(status, { ...headers, 'content-encoding': encoding });
  const z = compressor(encoding);
  z.pipe(res);
  const half = Math.floor(body.length / 2);
  z.write(body.slice(0, half));
  z.flush(encoding === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.Z_SYNC_FLUSH, () => z.end(body.slice(half)));
}

/** The canned reply, compressed. */
const compressed =
  (encoding: Encoding): Behaviour =>
  (req, res) => {
    let status = 200;
    let headers: Record<string, string> = {};
    const recorder = {
      writeHead: (s: number, h: Record<string, string>) => {
        status = s;
        headers = h;
      },
      end: (body: string) => writeCompressed(res, encoding, status, headers, body),
    };
    cannedReply(req, recorder as unknown as ServerResponse);
  };

const openai = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
const anthropic = () => new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
const chatBody = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'hi' }] });
const msgBody = (model: string) => ({ model, max_tokens: 10, messages: [{ role: 'user' as const, content: 'hi' }] });

type Caller = 'chat' | 'messages';
const ROUTES: { caller: Caller; model: string; way: string }[] = [
  { caller: 'chat', model: 'gpt-test', way: 'passthrough' },
  { caller: 'chat', model: 'claude-test', way: 'translated' },
  { caller: 'messages', model: 'claude-test', way: 'passthrough' },
  { caller: 'messages', model: 'gpt-test', way: 'translated' },
];

async function text(caller: Caller, model: string, stream: boolean): Promise<string> {
  if (caller === 'chat') {
    if (!stream) return (await openai().chat.completions.create(chatBody(model))).choices[0]!.message.content ?? '';
    let out = '';
    for await (const chunk of await openai().chat.completions.create({ ...chatBody(model), stream: true })) out += chunk.choices[0]?.delta.content ?? '';
    return out;
  }
  if (!stream) {
    const m = await anthropic().messages.create(msgBody(model));
    return m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  }
  const m = await anthropic().messages.stream(msgBody(model)).finalMessage();
  return m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

async function raw(caller: Caller, model: string, stream: boolean) {
  const [path, headers, body] =
    caller === 'messages'
      ? ['/v1/messages', { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' }, { ...msgBody(model), stream }]
      : ['/v1/chat/completions', { authorization: `Bearer ${GATEWAY_KEY}` }, { ...chatBody(model), stream }];
  // The client asks for compression too: the gateway does not pass that on, and answers uncompressed.
  const res = await fetch(gw.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip, br, deflate', ...headers },
    body: JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes };
}

describe('compressed upstream answers are decoded', () => {
  for (const encoding of ['gzip', 'br', 'deflate'] as const) {
    for (const { caller, model, way } of ROUTES) {
      for (const stream of [false, true]) {
        it(`${encoding}, ${caller} ${way}, ${stream ? 'stream' : 'no stream'}`, async () => {
          upstream.once(compressed(encoding));
          expect(await text(caller, model, stream)).toBe(CANNED_TEXT);
          expect(upstream.last().headers['accept-encoding']).toBe('identity');

          upstream.once(compressed(encoding));
          // Node's fetch would decode a stale content-encoding quietly: read what came on the wire.
          const res = await raw(caller, model, stream);
          expect(res.status).toBe(200);
          expect(res.headers.get('content-encoding')).toBeNull();
          const body = res.bytes.toString('utf8');
          expect(body).toContain(stream ? 'Hello' : CANNED_TEXT);
          if (!stream) expect(Number(res.headers.get('content-length'))).toBe(res.bytes.length);
          expect(upstream.last().headers['accept-encoding']).toBe('identity');
        });
      }
    }
  }

  it.each(['gzip', 'br', 'deflate'] as const)('a %s error answer keeps its status and message', async (encoding) => {
    upstream.once((_req, res) =>
      writeCompressed(res, encoding, 429, { 'content-type': 'application/json' }, JSON.stringify({ error: { message: 'Slow down', type: 'rate_limit_error' } })),
    );
    const err = await openai().chat.completions.create(chatBody('gpt-test')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    expect((err as Error).message).toMatch(/Slow down/);
  });

  it.each([
    ['an unknown encoding', 'zstd', /content-encoding 'zstd', which the gateway cannot decode/],
    ['two encodings', 'gzip, br', /content-encoding 'gzip, br', which the gateway cannot decode/],
    ['a body that is not gzip', 'gzip', /gzip-compressed answer that does not decode/],
  ])('%s is a clear 502', async (_name, encoding, message) => {
    for (const stream of [false, true]) {
      upstream.once((_req, res) => {
        res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json', 'content-encoding': encoding });
        res.end('not compressed at all, and long enough to be read as a body');
      });
      const res = await raw('chat', 'gpt-test', stream);
      const body = res.bytes.toString('utf8');
      if (stream && res.status === 200) expect(body).toMatch(/^data: \{"error":/m);
      else expect(res.status).toBe(502);
      expect(body).toMatch(message);
    }
    expect(await text('chat', 'gpt-test', false)).toBe(CANNED_TEXT);
  });
});

describe('a compressed body that decodes past server.maxResponseBytes', () => {
  const bomb = (head: string, unit: string) => gzipSync(Buffer.concat([Buffer.from(head), Buffer.alloc(32 * 1024 * 1024, unit)]));
  const json = bomb('{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"', 'a');
  // Made here, so that making them does not count in the memory a request took.
  const sseLines = { messages: bomb(`${messageFrames('m')[0]!}data: {"x":"`, 'a'), chat: bomb(`${chatFrames('m', false)[0]!}data: {"x":"`, 'a') };

  for (const { caller, model, way } of ROUTES) {
    for (const stream of [false, true]) {
      it(`is stopped at the limit: ${caller} ${way}, ${stream ? 'stream' : 'no stream'}`, async () => {
        expect(json.length).toBeLessThan(LIMIT);
        upstream.once((req, res) => {
          res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json', 'content-encoding': 'gzip' });
          res.end(stream ? sseLines[upstreamProtocol(req) === 'messages' ? 'messages' : 'chat'] : json);
        });
        const before = process.memoryUsage().rss;
        const res = await raw(caller, model, stream);
        const body = res.bytes.toString('utf8');
        expect(body).toMatch(/larger than the gateway's limit of 65536 bytes/);
        if (stream) expect(res.status).toBe(200);
        else expect(res.status).toBe(502);
        expect(res.bytes.length).toBeLessThan(LIMIT);
        expect(process.memoryUsage().rss - before).toBeLessThan(32 * 1024 * 1024);
        expect(await text(caller, model, false)).toBe(CANNED_TEXT);
      });
    }
  }
});
