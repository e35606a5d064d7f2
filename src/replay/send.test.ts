import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendReplay } from './send.js';

describe('sendReplay', () => {
  let server: Server;
  let url: string;
  const seen: { method: string | undefined; url: string | undefined; headers: Record<string, unknown>; body: string }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        if (req.url === '/v1/messages') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('event: message_start\ndata: {"type":"message_start"}\n\n');
          setTimeout(() => res.end('event: message_stop\ndata: {"type":"message_stop"}\n\n'), 5);
          return;
        }
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"no"}}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('sends method, path, headers and body, and decodes a stream into timed events', async () => {
    const res = await sendReplay({ method: 'POST', url: new URL('/v1/messages', url), headers: { 'x-api-key': 'k', 'content-type': 'application/json' }, body: '{"a":1}' }, url);
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/v1/messages', headers: { 'x-api-key': 'k' }, body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(res.body.events?.map((e) => e.event)).toEqual(['message_start', 'message_stop']);
    const [first, last] = res.body.events!;
    expect(last!.t).toBeGreaterThanOrEqual(first!.t);
  });

  it('decodes a JSON answer', async () => {
    const res = await sendReplay({ method: 'GET', url: new URL('/nowhere', url), headers: {} }, url);
    expect(res).toMatchObject({ status: 404, body: { json: { error: { message: 'no' } } } });
  });

  it('says where it could not connect', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(sendReplay({ method: 'GET', url: new URL('/', dead), headers: {} }, dead)).rejects.toThrow(new RegExp(`^Cannot reach ${dead}: ECONNREFUSED`));
  });
});
