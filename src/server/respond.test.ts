import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { whenDrained, writeNow } from './respond.js';

/**
 * Writes two chunks with `write` to a real response over loopback; returns what the socket still
 * held right after each write, how many writes each took on the socket, and the body the client received.
 */
async function serve(write: (res: ServerResponse, chunk: string) => boolean) {
  const held: { corked: number; buffered: number; socketWrites: number }[] = [];
  const server = createServer((_req, res) => {
    // Node's own socket, counted: what it hands to the kernel in one call goes through _write or _writev.
    const socket = res.socket! as Socket & { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
    let socketWrites = 0;
    for (const method of ['_write', '_writev'] as const) {
      const original = socket[method].bind(socket);
      socket[method] = (...a: unknown[]) => (socketWrites++, original(...a));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const chunk of ['data: one\n\n', 'data: two\n\n']) {
      const before = socketWrites;
      write(res, chunk);
      held.push({ corked: res.socket!.writableCorked, buffered: res.socket!.writableLength, socketWrites: socketWrites - before });
    }
    res.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const req = request({ host: '127.0.0.1', port, path: '/' });
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    let body = '';
    for await (const chunk of res) body += String(chunk);
    return { held, body };
  } finally {
    server.close();
  }
}

describe('writeNow', () => {
  // One socket write per chunk, its chunked-encoding frame included: a corked response on Node 22 and later
  // wrote four (CI runs the suite on Node 24 too).
  it('hands each chunk to the socket in one write before it returns, the first with the headers', async () => {
    const { held, body } = await serve(writeNow);
    expect(body).toBe('data: one\n\ndata: two\n\n');
    expect(held).toEqual([
      { corked: 0, buffered: 0, socketWrites: 1 },
      { corked: 0, buffered: 0, socketWrites: 1 },
    ]);
  });

  // Why it exists: the plain write holds the chunk until the next tick, behind whatever runs after it.
  it('differs from res.write, which leaves the socket corked until the next tick', async () => {
    const { held, body } = await serve((res, chunk) => res.write(chunk));
    expect(body).toBe('data: one\n\ndata: two\n\n');
    expect(held[0]!.corked).toBe(1);
    expect(held[0]!.buffered).toBeGreaterThan(0);
  });
});

/**
 * A response whose `write` answers true however much waits and which passes no 'drain' on, as Node 22 and
 * later did for a chunked write under the response's `cork` (nodejs/node#60432), to a client that reads
 * nothing until told to: `writeNow` and `whenDrained` must not depend on either, on any Node.
 */
async function unreadResponse(run: (res: ServerResponse) => Promise<void>) {
  let handled!: (result: Promise<void>) => void;
  const result = new Promise<void>((resolve) => (handled = resolve));
  const server = createServer((_req, res) => {
    const write = res.write.bind(res) as (chunk: Buffer) => boolean;
    res.write = ((chunk: Buffer) => (write(chunk), true)) as typeof res.write;
    const emit = res.emit.bind(res);
    res.emit = ((event: string, ...args: unknown[]) => (event === 'drain' ? false : emit(event, ...args))) as typeof res.emit;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    handled(run(res).finally(() => res.end()));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(client, 'connect');
  client.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
  client.pause();
  // The one connection stays open; no other is needed.
  server.close();
  return { client, done: () => result };
}

describe('writeNow and whenDrained: back-pressure when write() does not report it', () => {
  it('reports a client that reads nothing within a few MiB, and resumes once it reads', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x7e);
    let written = 0;
    let resumed = false;
    const { client, done } = await unreadResponse(async (res) => {
      while (writeNow(res, chunk) && written < 64 * 1024 * 1024) written += chunk.length;
      // Kernel buffers on loopback hold a few MiB; without the check all 64 MiB would be taken.
      expect(written).toBeLessThan(16 * 1024 * 1024);
      const drained = new Promise<void>((resolve) => whenDrained(res, resolve));
      client.resume();
      await drained;
      resumed = true;
    });
    await done();
    expect(resumed).toBe(true);
    client.destroy();
  });
});
