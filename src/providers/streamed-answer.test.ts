import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatProvider, sendChat } from '../../test/helpers/chat-provider.js';
import { GatewayError } from '../errors.js';
import { readText } from '../pipeline/relay/answer-body.js';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { CallAbort } from './abort.js';
import type { Provider, UpstreamResponse } from './types.js';
import { type FedBody, StreamAnswerHandler, type UpstreamControl } from './streamed-answer.js';

/** An upstream whose answer each test picks by path; it keeps the connection each route was last asked on. */
let server: Server;
let origin: string;
const sockets: Record<string, Socket> = {};
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {};
const sse = (n: number) => `data: {"n":${n}}\n\n`;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const route = req.headers['x-route'] as string;
    sockets[route] = req.socket;
    req.on('end', () => routes[route]!(req, res));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

let p: Provider;
beforeAll(() => {
  p = chatProvider(origin, { idleMs: 2_000 });
});
afterAll(() => p.close());

const send = (route: string, abort = new CallAbort()): Promise<UpstreamResponse> => sendChat(p, route, { abort, stream: true });

/** Reads a body through the listener surface the relays use; `onChunk` may pause it. */
function read(body: Readable, onChunk?: (chunk: Buffer, count: number) => void) {
  const chunks: Buffer[] = [];
  const done = new Promise<{ text: string; error?: Error }>((resolve) => {
    body.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      onChunk?.(chunk, chunks.length);
    });
    body.once('end', () => resolve({ text: Buffer.concat(chunks).toString() }));
    body.once('error', (error: Error) => resolve({ text: Buffer.concat(chunks).toString(), error }));
  });
  return { chunks, done };
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a streamed answer (a request that asked for a stream)', () => {
  afterEach(() => {
    for (const key of Object.keys(routes)) delete routes[key];
  });

  it('resolves at the headers and hands over every chunk in order, then ends', async () => {
    routes.paced = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'X-Request-Id': 'up-1' });
      let n = 0;
      const next = () => {
        if (n >= 5) return void res.end(sse(99));
        res.write(sse(n++));
        setTimeout(next, 2);
      };
      next();
    };
    const res = await send('paced');
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({ 'content-type': 'text/event-stream', 'x-request-id': 'up-1' });
    expect(res.whole).toBeUndefined();
    const { done } = read(res.body);
    expect(await done).toEqual({ text: [0, 1, 2, 3, 4, 99].map(sse).join('') });
  });

  it('keeps what came with the headers until the reader is there', async () => {
    routes.burst = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse(1) + sse(2));
    };
    const res = await send('burst');
    // Once the whole answer has been parsed, nothing may be lost for a reader that comes late.
    await expect.poll(() => res.body.readableLength).toBe((sse(1) + sse(2)).length);
    expect(await read(res.body).done).toEqual({ text: sse(1) + sse(2) });
  });

  it('stops reading the socket for a reader that pauses, and goes on when it resumes', async () => {
    const piece = 'x'.repeat(16 * 1024);
    const pieces = 256; // 4 MiB: far more than the socket and the body hold while paused
    let written = 0;
    routes.big = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pump = () => {
        while (written < pieces) {
          written++;
          if (!res.write(piece)) return res.once('drain', pump);
        }
        res.end();
      };
      pump();
    };
    const res = await send('big');
    const { chunks, done } = read(res.body, (_chunk, count) => {
      if (count === 1) res.body.pause();
    });
    // The wait is the test: however long the reader stays paused, the upstream is held back by TCP,
    // and the body holds little.
    await tick(150);
    expect(chunks).toHaveLength(1);
    expect(written).toBeLessThan(pieces);
    expect(res.body.readableLength).toBeLessThan(1024 * 1024);
    res.body.resume();
    const { text, error } = await done;
    expect(error).toBeUndefined();
    expect(text.length).toBe(piece.length * pieces);
  });

  it('bounds what it holds for a reader that never comes', async () => {
    routes.flood = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const piece = 'y'.repeat(64 * 1024);
      const pump = () => {
        while (res.write(piece));
        res.once('drain', pump);
      };
      pump();
    };
    const res = await send('flood');
    // The wait is the test: however long no reader comes, what the body holds stays bounded.
    await tick(150);
    expect(res.body.readableLength).toBeGreaterThan(0);
    expect(res.body.readableLength).toBeLessThan(512 * 1024);
    res.body.destroy();
  });

  it('hands over what came before an upstream that breaks off, then the error', async () => {
    routes.broken = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse(1));
      setTimeout(() => res.destroy(), 20);
    };
    const res = await send('broken');
    const { text, error } = await read(res.body).done;
    expect(text).toBe(sse(1));
    expect(error).toBeInstanceOf(Error);
  });

  it('hands over a chunk that came with the headers, then the error, when the framing breaks in the same read', async () => {
    // A raw upstream: the head, one chunk and a broken chunk size in one write, so undici finds the
    // answer, its first chunk and the failure in one pass, before any reader is there.
    const raw = createTcpServer((socket) => {
      socket.once('data', () =>
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n${sse(1).length.toString(16)}\r\n${sse(1)}\r\nzz\r\n`),
      );
      socket.on('error', () => undefined);
    });
    raw.listen(0, '127.0.0.1');
    await once(raw, 'listening');
    const q = chatProvider(`http://127.0.0.1:${(raw.address() as AddressInfo).port}`);
    try {
      const res = await sendChat(q, 'broken-framing', { stream: true });
      const { text, error } = await read(res.body).done;
      expect(text).toBe(sse(1));
      expect(error).toBeInstanceOf(Error);
    } finally {
      await q.close();
      raw.close();
    }
  });

  it('rejects with the abort reason before the headers, and gives it as the error after them', async () => {
    routes.silent = () => undefined;
    routes.hanging = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse(1));
    };
    const reason = new GatewayError('timeout', 'cap reached');
    const early = new CallAbort();
    const pending = send('silent', early);
    setTimeout(() => early.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);

    const late = new CallAbort();
    const res = await send('hanging', late);
    const reading = read(res.body, () => late.abort(reason));
    expect(await reading.done).toEqual({ text: sse(1), error: reason });
    expect(early.listenerCount('abort')).toBe(0);
    expect(late.listenerCount('abort')).toBe(0);
  });

  it('follows an AbortSignal when the caller gives no CallAbort (check --probe does)', async () => {
    routes.hanging = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse(1));
    };
    const controller = new AbortController();
    const reason = new GatewayError('timeout', 'probe took too long');
    const json = { model: 'm', stream: true, messages: [] };
    const res = await p.send({
      protocol: 'chat',
      operation: 'create',
      headers: { 'content-type': 'application/json', 'x-route': 'hanging' },
      body: Buffer.from(JSON.stringify(json)),
      json,
      signal: controller.signal,
    });
    const reading = read(res.body, () => controller.abort(reason));
    expect(await reading.done).toEqual({ text: sse(1), error: reason });
  });

  it('closes the upstream connection when the reader destroys the body, and says nothing more', async () => {
    routes.endless = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write(sse(0)), 5);
      res.on('close', () => clearInterval(timer));
    };
    const res = await send('endless');
    const events: string[] = [];
    res.body.on('data', () => {
      events.push('data');
      res.body.destroy();
    });
    res.body.once('end', () => events.push('end'));
    res.body.once('error', () => events.push('error'));
    // The wait is the test: nothing may follow the destroy, not even once the connection is gone.
    await tick(100);
    expect(events).toEqual(['data']);
    expect(sockets.endless!.destroyed).toBe(true);
  });

  it('can be read with for await, and leaving the loop early stops the call', async () => {
    routes.ten = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let n = 0;
      const next = () => {
        if (n >= 10) return void res.end();
        res.write(sse(n++));
        setTimeout(next, 2);
      };
      next();
    };
    let text = '';
    for await (const chunk of (await send('ten')).body) text += chunk.toString();
    expect(text).toBe([...Array(10).keys()].map(sse).join(''));

    routes.endless = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write(sse(0)), 5);
      res.on('close', () => clearInterval(timer));
    };
    for await (const chunk of (await send('endless')).body) if (chunk.length > 0) break;
    await expect.poll(() => sockets.endless!.destroyed).toBe(true);
  });

  it('gives an error answer to readText, and keeps the connection for the next call', async () => {
    routes.limited = (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end('{"error":{"message":"slow down"}}');
    };
    const res = await send('limited');
    expect(res.status).toBe(429);
    expect(await readText(res, 1000, new AbortController().signal)).toBe('{"error":{"message":"slow down"}}');
    // The wait is the test: a connection given up on would be destroyed by now.
    await tick(20);
    expect(sockets.limited!.destroyed).toBe(false);
  });

  it('skips informational answers (103 Early Hints)', async () => {
    routes.hints = (_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload' });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse(7));
    };
    const res = await send('hints');
    expect(res.status).toBe(200);
    expect(res.headers.link).toBeUndefined();
    expect(await read(res.body).done).toEqual({ text: sse(7) });
  });
});

/** A kind's own body, for the seam's test: what it is fed, upper-cased. */
class UpperBody extends Readable implements FedBody {
  constructor(readonly upstream: UpstreamControl) {
    super();
  }
  feed(chunk: Buffer): boolean {
    return this.push(Buffer.from(chunk.toString('latin1').toUpperCase(), 'latin1'));
  }
  finish(): void {
    this.push(null);
  }
  override _read(): void {
    this.upstream.resume();
  }
}

describe("a kind's own body for a streamed answer (HttpHooks.streamBody)", () => {
  it.each([
    ['as they came', undefined],
    ['decoded from gzip', 'gzip'],
  ])('is fed the chunks %s, then the end, and is the answer\'s body', async (_name, encoding) => {
    let answer: UpstreamResponse | undefined;
    let asked: { status: number; type: unknown } | undefined;
    const handler = new StreamAnswerHandler(
      new CallAbort(),
      (err, a) => {
        if (err) throw err;
        answer = a;
      },
      (status, headers, upstream) => {
        asked = { status, type: headers['content-type'] };
        return new UpperBody(upstream);
      },
    );
    const raw = [Buffer.from('content-type'), Buffer.from('application/x-own'), ...(encoding ? [Buffer.from('content-encoding'), Buffer.from(encoding)] : [])];
    handler.onHeaders(200, raw, () => undefined);
    const bytes = (text: string) => (encoding ? gzipSync(text) : Buffer.from(text));
    handler.onData(bytes('first '));
    handler.onData(bytes('second'));
    handler.onComplete();
    expect(asked).toEqual({ status: 200, type: 'application/x-own' });
    expect(answer?.body).toBeInstanceOf(UpperBody);
    expect((await read(answer!.body).done).text).toBe('FIRST SECOND');
  });

  it('a kind that declines keeps the bytes as they came', async () => {
    let answer: UpstreamResponse | undefined;
    const handler = new StreamAnswerHandler(new CallAbort(), (_err, a) => (answer = a), () => undefined);
    handler.onHeaders(200, [Buffer.from('content-type'), Buffer.from('text/event-stream')], () => undefined);
    handler.onData(Buffer.from(sse(1)));
    handler.onComplete();
    expect((await read(answer!.body).done).text).toBe(sse(1));
  });
});
