/**
 * Preload (`node --import bench/lib/ttfb-probe.mjs`) for any node:http + undici proxy: per request, the
 * proxy's own share of a serial stream's time to first byte, measured the same way in the gateway and in
 * the reference forwarder, through Node's and undici's diagnostics channels:
 *   pre   from the server's `http.server.request.start` to undici's `undici:request:create` (the upstream call);
 *   post  from undici's `undici:request:headers` (the upstream's answer) to the first write on a response.
 * Meant for one request at a time (serial streams): with several in flight the pairs would mix.
 * At exit, writes `{ pre, post }` (ms) to `$TTFB_PROBE_DIR/ttfb-probe-<pid>.json`.
 */
import dc from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const pre = [];
const post = [];
let started;
let answered;
dc.subscribe('http.server.request.start', () => {
  started = performance.now();
});
dc.subscribe('undici:request:create', () => {
  if (started === undefined) return;
  pre.push(performance.now() - started);
  started = undefined;
});
dc.subscribe('undici:request:headers', () => {
  answered = performance.now();
});
const write = http.ServerResponse.prototype.write;
http.ServerResponse.prototype.write = function probedWrite(...args) {
  if (answered !== undefined) {
    post.push(performance.now() - answered);
    answered = undefined;
  }
  return write.apply(this, args);
};
process.on('exit', () => {
  writeFileSync(join(process.env.TTFB_PROBE_DIR ?? tmpdir(), `ttfb-probe-${process.pid}.json`), JSON.stringify({ pre, post }));
});
