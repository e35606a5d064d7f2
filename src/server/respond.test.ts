import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { whenDrained, writeNow } from './respond.js';

/**
 * The connection the HTTP server writes to, between it and the real loopback socket (the server's
 * 'connection' event takes any Duplex): it counts the writes the server hands it, each one what a
 * socket hands the kernel in one call, and accepts each at once, as the kernel does while it has room.
 */
function countedConnection(socket: Socket) {
  let writes = 0;
  const connection = new Duplex({
    write(chunk: Buffer, _encoding, callback) {
      writes++;
      socket.write(chunk);
      callback();
    },
    writev(chunks, callback) {
      writes++;
      socket.write(Buffer.concat(chunks.map(({ chunk }) => chunk as Buffer)));
      callback();
    },
    read() {
      socket.resume();
    },
    final(callback) {
      socket.end(callback);
    },
    destroy(error, callback) {
      socket.destroy(error ?? undefined);
      callback(error);
    },
  });
  socket.on('data', (data) => connection.push(data) || socket.pause());
  socket.on('end', () => connection.push(null));
  return { connection, writes: () => writes };
}

/**
 * Writes two chunks with `write` to a real response over loopback; returns what the connection still
 * held right after each write, how many writes each took on it, and the body the client received.
 */
async function serve(write: (res: ServerResponse, chunk: string) => boolean) {
  const held: { corked: number; buffered: number; socketWrites: number }[] = [];
  const counted = new WeakMap<object, () => number>();
  const server = createServer((_req, res) => {
    const socketWrites = counted.get(res.socket!)!;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const chunk of ['data: one\n\n', 'data: two\n\n']) {
      const before = socketWrites();
      write(res, chunk);
      held.push({ corked: res.socket!.writableCorked, buffered: res.socket!.writableLength, socketWrites: socketWrites() - before });
    }
    res.end();
  });
  const tcp = createTcpServer((socket) => {
    const { connection, writes } = countedConnection(socket);
    counted.set(connection, writes);
    server.emit('connection', connection);
  });
  tcp.listen(0, '127.0.0.1');
  await once(tcp, 'listening');
  try {
    const { port } = tcp.address() as AddressInfo;
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false });
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    let body = '';
    for await (const chunk of res) body += String(chunk);
    return { held, body };
  } finally {
    tcp.close();
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
    expect(held[0]).toMatchObject({ corked: 1, socketWrites: 0 });
    expect(held[0]!.buffered).toBeGreaterThan(0);
  });
});

/**
 * A streamed response to a real client that stops reading once its request is sent, so the kernel's
 * buffers fill and stay full until it reads again. On Node 22 and later a chunked write under the
 * response's `cork` answers true however much waits and passes no 'drain' on (nodejs/node#60432); CI runs
 * this on Node 20 and 24, so a `writeNow` or `whenDrained` that leaned on either fails there.
 */
async function unreadResponse(run: (res: ServerResponse) => Promise<void>) {
  let handled!: (result: Promise<void>) => void;
  const result = new Promise<void>((resolve) => (handled = resolve));
  const server = createServer((_req, res) => {
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

describe('writeNow and whenDrained: back-pressure from a client that stops reading', () => {
  // Chunks below the response's high-water mark (16 KiB) are the ones Node 22 and later answered true for.
  it.each([{ kib: 1 }, { kib: 64 }])('reports a client that reads nothing within a few MiB, and resumes once it reads ($kib KiB chunks)', async ({ kib }) => {
    const chunk = Buffer.alloc(kib * 1024, 0x7e);
    let written = 0;
    let resumed = false;
    const { client, done } = await unreadResponse(async (res) => {
      while (writeNow(res, chunk) && written < 64 * 1024 * 1024) written += chunk.length;
      // Kernel buffers on loopback hold a few MiB; without back-pressure all 64 MiB would be taken.
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
