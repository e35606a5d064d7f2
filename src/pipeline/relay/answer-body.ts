/**
 * Reading an upstream answer's body whole: for JSON answers, and for error bodies (bounded). A
 * transport may have read it whole already (`UpstreamResponse.whole`); then that is the body.
 */
import { GatewayError } from '../../errors.js';
import type { UpstreamResponse } from '../../providers/types.js';
import type { RelayContext } from './context.js';

/** A failure while reading the answer, as the provider names it to the caller. */
const mapped = (ctx: RelayContext, err: unknown): unknown =>
  ctx.provider.transportError ? ctx.provider.transportError(err, ctx.signal) : err;

/** Reads the whole body; past `server.maxResponseBytes` the body is destroyed and the call fails. */
export function readAll(ctx: RelayContext, upstream: UpstreamResponse): Promise<Buffer> {
  if (upstream.whole) return Promise.resolve(upstream.whole);
  const { body } = upstream;
  const limit = ctx.maxResponseBytes;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    body.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size <= limit) {
        chunks.push(c);
        return;
      }
      over = true;
      chunks.length = 0;
      body.destroy();
      reject(mapped(ctx, tooLarge(ctx)));
    });
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    body.once('error', (err) => reject(mapped(ctx, err)));
  });
}

/** Reads up to `limit` bytes as text and discards the rest, so the connection can be reused. */
export function readText(upstream: UpstreamResponse, limit: number, signal: AbortSignal): Promise<string> {
  if (upstream.whole) return Promise.resolve(upstream.whole.toString('utf8', 0, limit));
  const { body } = upstream;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (c: Buffer) => {
      if (size < limit) chunks.push(c);
      size += c.length;
    });
    const done = () => resolve(Buffer.concat(chunks).subarray(0, limit).toString('utf8'));
    body.once('end', done);
    body.once('error', () => done());
    signal.addEventListener('abort', done, { once: true });
  });
}

function tooLarge(ctx: RelayContext): GatewayError {
  return new GatewayError(
    'upstream_error',
    `Provider '${ctx.provider.id}' sent an answer larger than the gateway's limit of ${ctx.maxResponseBytes} bytes (server.maxResponseBytes).`,
  );
}
