/**
 * Preload (`node --import bench/lib/ttfb-probe.mjs`) for any node:http + undici proxy: per request, the
 * proxy's own share of a serial stream's time to first byte, measured the same way in the gateway and in
 * the reference forwarder, through Node's and undici's diagnostics channels:
 *   pre    from the server's `http.server.request.start` to undici's `undici:request:create` (the upstream call);
 *   send   from there to undici's `undici:client:sendHeaders`, right before the request is written to its socket;
 *   post   from undici's `undici:request:headers` (the upstream's answer) to the first write on a response;
 *   flush  from that write to the socket's own write, which takes the bytes to the kernel: a write to a
 *          corked socket waits for the uncork, and `res.write` corks until the next tick.
 * Meant for one request at a time (serial streams): with several in flight the pairs would mix.
 * At exit, writes `{ pre, send, post, flush }` (ms) to `$TTFB_PROBE_DIR/ttfb-probe-<pid>.json`.
 */
import dc from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const pre = [];
const send = [];
const post = [];
const flush = [];
let started;
let created;
let answered;
let written;
let writtenTo;
dc.subscribe('http.server.request.start', () => {
  started = performance.now();
});
dc.subscribe('undici:request:create', () => {
  if (started === undefined) return;
  created = performance.now();
  pre.push(created - started);
  started = undefined;
});
dc.subscribe('undici:client:sendHeaders', () => {
  if (created === undefined) return;
  send.push(performance.now() - created);
  created = undefined;
});
dc.subscribe('undici:request:headers', () => {
  answered = performance.now();
});
const write = http.ServerResponse.prototype.write;
http.ServerResponse.prototype.write = function probedWrite(...args) {
  if (answered !== undefined) {
    written = performance.now();
    writtenTo = this.socket;
    post.push(written - answered);
    answered = undefined;
  }
  return write.apply(this, args);
};
// A stream.Writable hands its data to `_write` (one chunk) or `_writev` (what a cork gathered).
for (const method of ['_write', '_writev']) {
  const original = net.Socket.prototype[method];
  net.Socket.prototype[method] = function probedSocketWrite(...args) {
    if (written !== undefined && this === writtenTo) {
      flush.push(performance.now() - written);
      written = undefined;
      writtenTo = undefined;
    }
    return original.apply(this, args);
  };
}
process.on('exit', () => {
  writeFileSync(join(process.env.TTFB_PROBE_DIR ?? tmpdir(), `ttfb-probe-${process.pid}.json`), JSON.stringify({ pre, send, post, flush }));
});
