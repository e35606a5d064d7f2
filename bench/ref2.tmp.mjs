#!/usr/bin/env node
/**
 * The reference forwarder: a deliberately minimal node:http + undici.Pool proxy,
 * the cost of forwarding alone, to compare the gateway against in the same run.
 * It does what any gateway must and nothing else:
 *   read the body, JSON.parse it, check the caller's key (x-api-key or Bearer)
 *   against a 10,001-entry Map, route on `model`, forward the ORIGINAL bytes
 *   with the provider credential (no re-serialisation), and pipe the answer back
 *   chunk by chunk with `.pipe()` and explicit error/close handling.
 * No logging, no validation, no translation, no usage accounting.
 *
 * Usage: node bench/reference-forwarder.mjs --upstream URL --routes JSON --key KEY [--port 0]
 *   routes: {"model-name": "/path/prefix", ...} (the prefix the fake upstream reads its delay from).
 * Prints {"url": "..."} on stdout when listening.
 */
import { createServer } from 'node:http';
import { Pool } from 'undici';
import { EventEmitter } from 'node:events';

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const upstream = arg('upstream');
const routes = new Map(Object.entries(JSON.parse(arg('routes', '{}'))));
const port = Number(arg('port', '0'));
if (!upstream) throw new Error('--upstream URL is required');

const keys = new Map();
for (let i = 0; i < 10_000; i++) keys.set(`sk-ref-${i.toString(16).padStart(8, '0')}`, { group: `g${i % 7}` });
keys.set(arg('key', 'bench-key'), { group: 'dev' });

const pool = new Pool(upstream, { connections: 1024, pipelining: 1, keepAliveTimeout: 30_000 });
const PROVIDER_KEY = 'sk-provider-reference';

function fail(res, status, message) {
  const body = JSON.stringify({ error: { message, type: 'invalid_request_error' } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function callerKey(headers) {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string') return apiKey;
  const auth = headers.authorization;
  return typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : undefined;
}

function forward(req, res, raw) {
  let body;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return fail(res, 400, 'body is not JSON');
  }
  const key = callerKey(req.headers);
  if (key === undefined || !keys.has(key)) return fail(res, 401, 'invalid key');
  const prefix = routes.get(body?.model);
  if (prefix === undefined) return fail(res, 404, 'unknown model');

  let path = req.url ?? '/';
  const q = path.indexOf('?');
  if (q >= 0) path = path.slice(0, q);
  const headers = { 'content-type': 'application/json' };
  if (path.startsWith('/v1/messages')) {
    headers['x-api-key'] = PROVIDER_KEY;
    headers['anthropic-version'] = req.headers['anthropic-version'] ?? '2023-06-01';
  } else {
    headers.authorization = `Bearer ${PROVIDER_KEY}`;
  }

  if (process.env.REF_HEADERS) { headers.accept = req.headers.accept ?? 'application/json'; headers['user-agent'] = req.headers['user-agent'] ?? 'x'; }
  const signal = process.env.REF_SIGNAL ? new EventEmitter() : undefined;
  if (signal) res.on('close', () => { if (!res.writableFinished) signal.emit('abort'); });
  pool.request({ method: 'POST', path: prefix + path, headers, body: raw, ...(signal ? { signal } : {}) }).then(
    ({ statusCode, headers: upHeaders, body: upBody }) => {
      upBody.on('error', () => res.destroy());
      if (res.destroyed) {
        upBody.destroy();
        return;
      }
      if (process.env.REF_READALL && !String(upHeaders['content-type']).includes('event-stream')) {
        const chunks = [];
        upBody.on('data', (c) => chunks.push(c));
        upBody.on('end', () => {
          const b = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
          const out = {};
          for (const k in upHeaders) if (k === 'content-type' || k.startsWith('x-')) out[k] = upHeaders[k];
          out['content-length'] = b.length;
          res.writeHead(statusCode, out);
          res.end(b);
        });
        return;
      }
      res.writeHead(statusCode, { 'content-type': upHeaders['content-type'] ?? 'application/json' });
      res.on('close', () => {
        if (!res.writableFinished) upBody.destroy();
      });
      upBody.pipe(res);
    },
    () => {
      if (!res.headersSent) fail(res, 502, 'upstream unreachable');
      else res.destroy();
    },
  );
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => forward(req, res, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
  req.on('error', () => res.destroy());
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.requestTimeout = 0;
server.listen(port, '127.0.0.1', () => {
  const { port: p } = server.address();
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${p}` })}\n`);
});
const stop = () => {
  server.close();
  server.closeAllConnections();
  pool.close().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 500).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
