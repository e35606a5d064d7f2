/**
 * The live event stream's back-pressure, on a real HTTP server and real sockets: a page that
 * stops reading has its stream cut once it leaves the bound unread; pages that read keep getting
 * every event.
 */
import { createServer, get, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPushHub, DEFAULT_STREAM_BUFFER_BYTES, type PushHub } from './push.js';
import type { ExchangeSummary, PushEvent } from './common/types.js';

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server whose every request becomes an event stream of `hub`; the responses, as attached. */
async function serveHub(hub: PushHub): Promise<{ url: string; port: number; streams: ServerResponse[] }> {
  const streams: ServerResponse[] = [];
  server = createServer((_req, res) => {
    streams.push(res);
    hub.attach(res, {});
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, port, streams };
}

/** A row whose summary carries `size` bytes of text, as a long model name or error would. */
const event = (i: number, size: number): PushEvent => ({
  type: 'exchange',
  summary: { id: `req_${i}`, time: 0, method: 'POST', path: '/v1/chat/completions', translated: false, warnings: 0, attempts: 1, error: 'x'.repeat(size) } as ExchangeSummary,
  use: { bytes: 0, evicted: 0 },
});

/** A client that sends the request and then never reads a byte. */
async function stalledPage(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.pause();
  socket.write('GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\n\r\n');
  return socket;
}

/** A client that reads everything: the event ids it got. */
function readingPage(url: string): { ids: string[]; closed: Promise<void> } {
  const ids: string[] = [];
  const closed = new Promise<void>((resolve) => {
    get(url, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (s: string) => {
        text += s;
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const frame = text.slice(0, end);
          text = text.slice(end + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          const ev = data ? (JSON.parse(data.slice(6)) as PushEvent) : undefined;
          if (ev?.type === 'exchange') ids.push(ev.summary.id);
        }
      });
      res.on('close', resolve);
    });
  });
  return { ids, closed };
}

const until = async (probe: () => boolean, what: string) => {
  for (const stop = Date.now() + 10_000; !probe(); ) {
    if (Date.now() > stop) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('the live event stream', () => {
  it.each([
    // [bound, event size, events]: well past what the kernel's socket buffers take (a few MiB on loopback)
    [64 * 1024, 8_000, 1500],
    [1024 * 1024, 50_000, 800],
    [DEFAULT_STREAM_BUFFER_BYTES, 200_000, 200],
  ])('cuts a page that stops reading once %i bytes wait for it (events of %i bytes, %i of them); reading pages get them all', async (bound, size, count) => {
    const hub = createPushHub({ maxBufferedBytes: bound });
    const { url, port, streams } = await serveHub(hub);
    const stalled = await stalledPage(port);
    const reader = readingPage(url);
    await until(() => streams.length === 2, 'both pages');
    const stalledStream = streams[0]!;
    let mostWaiting = 0;
    for (let i = 0; i < count; i++) {
      hub.send(event(i, size));
      if (!stalledStream.destroyed) mostWaiting = Math.max(mostWaiting, stalledStream.writableLength);
      // Let the reading page read, as traffic would.
      await new Promise((r) => setImmediate(r));
    }
    // What the stalled page was holding never passed the bound by more than one event.
    expect(stalledStream.destroyed).toBe(true);
    expect(mostWaiting).toBeLessThanOrEqual(bound + size + 200);
    // The stalled page, reading at last, finds its stream cut short.
    stalled.resume();
    await new Promise<void>((resolve) => stalled.once('close', () => resolve()));
    // The reading page is still connected and got every event.
    await until(() => reader.ids.length === count, `the reading page's ${count} events (has ${reader.ids.length})`);
    expect(reader.ids).toEqual(Array.from({ length: count }, (_, i) => `req_${i}`));
    expect(hub.watching).toBe(true);
    hub.close();
    await reader.closed;
  });

  it('leaves a page that reads alone however much flows', async () => {
    const hub = createPushHub({ maxBufferedBytes: 64 * 1024 });
    const { url, streams } = await serveHub(hub);
    const reader = readingPage(url);
    await until(() => streams.length === 1, 'the page');
    for (let i = 0; i < 300; i++) {
      hub.send(event(i, 30_000));
      await new Promise((r) => setImmediate(r));
    }
    await until(() => reader.ids.length === 300, 'all events');
    expect(streams[0]!.destroyed).toBe(false);
    hub.close();
    await reader.closed;
  });
});
