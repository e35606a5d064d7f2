/**
 * A fake provider on 127.0.0.1, port 0: records every request it receives
 * (headers, raw body, parsed body, whether the client hung up) and answers with
 * canned provider replies, or with whatever a test installs for the next requests.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { cannedReply } from './canned.js';
import type { Behaviour, Received } from './received.js';

export interface FakeUpstream {
  readonly url: string;
  readonly received: Received[];
  /** Answers the next request with `behaviour` (queued; later calls queue more). */
  once(behaviour: Behaviour): void;
  /** Answers every request with `behaviour` until reset. */
  always(behaviour: Behaviour): void;
  reset(): void;
  last(): Received;
  /** Sockets the gateway holds open to this upstream right now. */
  openSockets(): number;
  close(): Promise<void>;
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const received: Received[] = [];
  const queue: Behaviour[] = [];
  let standing: Behaviour | undefined;
  const sockets = new Set<Socket>();

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        json = undefined;
      }
      const aborted = new Promise<boolean>((resolve) => res.once('close', () => resolve(!res.writableFinished)));
      const entry: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body, json, aborted };
      received.push(entry);
      const behaviour = queue.shift() ?? standing ?? cannedReply;
      void Promise.resolve(behaviour(entry, res)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(err));
      });
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    received,
    once: (b) => queue.push(b),
    always: (b) => {
      standing = b;
    },
    reset: () => {
      queue.length = 0;
      standing = undefined;
      received.length = 0;
    },
    last: () => {
      const r = received.at(-1);
      if (!r) throw new Error('the fake upstream received no request');
      return r;
    },
    openSockets: () => sockets.size,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes SSE frames with a pause between them, so tests can act mid-stream. */
export async function writeSlowly(res: ServerResponse, frames: readonly string[], gapMs: number): Promise<void> {
  for (const frame of frames) {
    if (res.destroyed) return;
    res.write(frame);
    await new Promise((r) => setTimeout(r, gapMs));
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
