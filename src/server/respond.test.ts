import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { writeNow } from './respond.js';

/**
 * Writes two chunks with `write` to a real response over loopback; returns what the socket still
 * held right after each write, and the body the client received.
 */
async function serve(write: (res: ServerResponse, chunk: string) => boolean) {
  const held: { corked: number; buffered: number }[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const chunk of ['data: one\n\n', 'data: two\n\n']) {
      write(res, chunk);
      held.push({ corked: res.socket!.writableCorked, buffered: res.socket!.writableLength });
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
  it('hands each chunk to the socket before it returns, the first with the headers', async () => {
    const { held, body } = await serve(writeNow);
    expect(body).toBe('data: one\n\ndata: two\n\n');
    expect(held).toEqual([
      { corked: 0, buffered: 0 },
      { corked: 0, buffered: 0 },
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
