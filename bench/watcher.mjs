#!/usr/bin/env node
/**
 * An inspector page as the benchmark plays it, run as its own process (pinned to
 * the load core, like every load generator): signs in with the banner's one-time
 * link, opens the live event stream `GET /_inspector/api/events` with the cookie,
 * and reads it as the page does, parsing every event as it arrives. While it is
 * connected the gateway captures whole exchanges for the inspector.
 *
 *   node bench/watcher.mjs LINK
 *
 * Prints `{"cookie": ...}` on stdout once the stream's `hello` event has arrived
 * (the gateway now counts it as watching; the cookie lets the orchestrator read
 * `/api/exchanges`). When its stdin closes it closes the stream and prints its
 * tally as one JSON line: events read by type, bytes, and the most bytes the
 * inspector said it held (each `exchange` event carries the store's use).
 */
import { StringDecoder } from 'node:string_decoder';
import { request } from 'undici';

const link = process.argv[2];
const fail = (message) => {
  process.stderr.write(`watcher: ${message}\n`);
  process.exit(1);
};
if (!link) fail('usage: node bench/watcher.mjs LINK');

const signIn = await request(link, { method: 'GET' });
await signIn.body.dump();
const setCookie = [signIn.headers['set-cookie']].flat()[0];
if (signIn.statusCode !== 303 || !setCookie) fail(`sign-in: status ${signIn.statusCode}, no cookie`);
const cookie = setCookie.split(';')[0];

const tally = { events: 0, hello: 0, exchange: 0, other: 0, pings: 0, bytes: 0, parseErrors: 0, maxHeldBytes: 0, lastUse: undefined, closedByServer: false };
const controller = new AbortController();
const events = await request(new URL('/_inspector/api/events', link), {
  method: 'GET',
  headers: { cookie, accept: 'text/event-stream' },
  signal: controller.signal,
  headersTimeout: 10_000,
  bodyTimeout: 0,
});
if (events.statusCode !== 200) fail(`events: status ${events.statusCode}`);

let ready = false;
const onEvent = (block) => {
  let name = 'message';
  let data = '';
  let comment = false;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) comment = true;
    else if (line.startsWith('event: ')) name = line.slice(7);
    else if (line.startsWith('data: ')) data += line.slice(6);
  }
  if (comment && data === '') {
    tally.pings++;
    return;
  }
  tally.events++;
  let event;
  try {
    event = JSON.parse(data);
  } catch {
    tally.parseErrors++;
    return;
  }
  if (name === 'hello' || event.type === 'hello') {
    tally.hello++;
    if (!ready) {
      ready = true;
      process.stdout.write(`${JSON.stringify({ cookie })}\n`);
    }
  } else if (event.type === 'exchange') {
    tally.exchange++;
    // What the page does with it: insert or replace the row, update the memory gauge.
    if (typeof event.summary?.id !== 'string') tally.parseErrors++;
    tally.lastUse = event.use;
    if (event.use?.bytes > tally.maxHeldBytes) tally.maxHeldBytes = event.use.bytes;
  } else tally.other++;
};

const decoder = new StringDecoder('utf8');
let buf = '';
const reading = (async () => {
  try {
    for await (const chunk of events.body) {
      tally.bytes += chunk.length;
      buf += decoder.write(chunk);
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (block.trim() !== '') onEvent(block);
      }
    }
    tally.closedByServer = true;
  } catch (err) {
    if (err?.name !== 'AbortError' && err?.code !== 'UND_ERR_ABORTED') tally.error = `${err?.code ?? err?.name}: ${err?.message}`;
  }
})();

process.stdin.resume();
process.stdin.once('end', async () => {
  controller.abort();
  await reading;
  process.stdout.write(`${JSON.stringify(tally)}\n`);
  process.exit(0);
});
