import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUTS } from '../config/schema.js';
import { chatProvider, sendChat } from '../../test/helpers/chat-provider.js';
import { GatewayError } from '../errors.js';
import { CallAbort } from './abort.js';
import { providerKind } from './kinds.js';
import type { Provider, UpstreamResponse } from './types.js';
import { ERROR_BODY_LIMIT, headersOf } from './whole-answer.js';

/** An upstream whose answer each test picks by path; it counts the connections it was given. */
let server: Server;
let origin: string;
let connections = 0;
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/v1/chat/completions': (_req, res) => {
    res.setHeader('set-cookie', ['a=1', 'b=2']);
    res.writeHead(200, { 'Content-Type': 'application/json', 'X-Request-Id': 'up-1' });
    res.write('{"id":"c1",');
    setTimeout(() => res.end('"usage":{"prompt_tokens":3}}'), 5);
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => (routes[req.headers['x-route'] as string] ?? routes['/v1/chat/completions']!)(req, res));
  });
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const provider = (): Provider => chatProvider(origin);
const send = (p: Provider, route: string, abort = new CallAbort(), stream = false): Promise<UpstreamResponse> => sendChat(p, route, { abort, stream });

async function text(body: AsyncIterable<Buffer>): Promise<string> {
  let out = '';
  for await (const chunk of body) out += String(chunk);
  return out;
}

describe('an answer read whole (a request that asked for no stream)', () => {
  it('resolves with all of the body, and the headers as undici parses them', async () => {
    const p = provider();
    try {
      const res = await send(p, '/v1/chat/completions');
      expect(res.status).toBe(200);
      expect(res.whole?.toString()).toBe('{"id":"c1","usage":{"prompt_tokens":3}}');
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers['x-request-id']).toBe('up-1');
      expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
      // Readers that want a stream get the same bytes from `body`.
      expect(await text(res.body)).toBe('{"id":"c1","usage":{"prompt_tokens":3}}');
    } finally {
      await p.close();
    }
  });

  it('gives a stream, not a whole body, when the caller asked for one', async () => {
    const p = provider();
    try {
      const res = await send(p, '/v1/chat/completions', new CallAbort(), true);
      expect(res.whole).toBeUndefined();
      expect(await text(res.body)).toBe('{"id":"c1","usage":{"prompt_tokens":3}}');
    } finally {
      await p.close();
    }
  });

  it('skips informational answers (103 Early Hints) and keeps the final one', async () => {
    routes['/hints'] = (_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    };
    const p = provider();
    try {
      const res = await send(p, '/hints');
      expect(res.status).toBe(200);
      expect(res.whole?.toString()).toBe('{"ok":true}');
      expect(res.headers.link).toBeUndefined();
    } finally {
      await p.close();
    }
  });

  it('keeps the first 64 KiB of an error answer, reads the rest, and reuses the connection', async () => {
    const big = 'x'.repeat(3 * ERROR_BODY_LIMIT);
    routes['/error'] = (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      // In pieces, so the limit is met between chunks as well as within one.
      res.write(big.slice(0, 1000));
      res.end(big.slice(1000));
    };
    const p = provider();
    try {
      const before = connections;
      const res = await send(p, '/error');
      expect(res.status).toBe(500);
      expect(res.whole!.length).toBeGreaterThanOrEqual(ERROR_BODY_LIMIT);
      expect(res.whole!.length).toBeLessThan(big.length);
      expect(res.whole!.toString()).toBe(big.slice(0, res.whole!.length));
      // undici frees the connection once its parser has finished with the answer, just after it settles.
      await new Promise((resolve) => setImmediate(resolve));
      const next = await send(p, '/v1/chat/completions');
      expect(next.status).toBe(200);
      expect(connections - before).toBe(1);
    } finally {
      await p.close();
    }
  });

  it('rejects with the abort reason when aborted before it is sent, and while the answer is read', async () => {
    routes['/slow'] = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
      // Never ends unless the client goes.
    };
    const p = provider();
    try {
      const early = new CallAbort();
      const reason = new GatewayError('timeout', 'cap reached');
      early.abort(reason);
      await expect(send(p, '/slow', early)).rejects.toBe(reason);

      const late = new CallAbort();
      const pending = send(p, '/slow', late);
      setTimeout(() => late.abort(reason), 50);
      await expect(pending).rejects.toBe(reason);
      // An abort without a GatewayError reason is a transport failure, as for streams.
      const plain = new CallAbort();
      const third = send(p, '/slow', plain);
      setTimeout(() => plain.abort(), 50);
      await expect(third).rejects.toBeInstanceOf(Error);
      expect(plain.listenerCount('abort')).toBe(0);
      expect(late.listenerCount('abort')).toBe(0);
    } finally {
      await p.close();
    }
  });

  it('maps an unreachable upstream as the stream path does', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const p = providerKind('openai').create({
      id: 'gone',
      type: 'openai',
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: 'k',
      headers: {},
      protocols: new Set(['chat']),
      timeouts: DEFAULT_TIMEOUTS,
      retries: 0,
      own: {},
      secrets: [],
      credentials: [],
    }, undefined);
    try {
      const err = await send(p, '/v1/chat/completions').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as GatewayError).kind).toBe('upstream_unavailable');
      expect((err as GatewayError).message).toContain('ECONNREFUSED');
    } finally {
      await p.close();
    }
  });
});

const HEADER_CASES: { raw: string[]; expected: Record<string, string | string[]> }[] = [
  { raw: ['Content-Type', 'application/json', 'X-Id', 'r1'], expected: { 'content-type': 'application/json', 'x-id': 'r1' } },
  { raw: ['Set-Cookie', 'a=1', 'set-cookie', 'b=2', 'SET-COOKIE', 'c=3'], expected: { 'set-cookie': ['a=1', 'b=2', 'c=3'] } },
  { raw: ['constructor', 'x', 'toString', 'y'], expected: { constructor: 'x', tostring: 'y' } },
  { raw: ['x-latin', '\u00e9t\u00e9'], expected: { 'x-latin': '\u00e9t\u00e9' } },
  { raw: [], expected: {} },
];

describe('headersOf', () => {
  it.each(HEADER_CASES)('reads $raw as Dispatcher#request does', ({ raw, expected }) => {
    const parsed = headersOf(raw.map((s) => Buffer.from(s, 'latin1')));
    expect({ ...parsed }).toEqual(expected);
  });

  it('keeps a header named __proto__ as a header, not as the prototype', () => {
    const parsed = headersOf([Buffer.from('__proto__'), Buffer.from('x')]);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toBe('x');
  });
});
