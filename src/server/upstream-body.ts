/**
 * Reading an upstream answer's body whole: for JSON answers, and for error bodies (bounded). A
 * transport may have read it whole already (`UpstreamResponse.whole`); then that is the body.
 */
import { AnswerTooLarge } from '../providers/decode-answer.js';
import { transportError } from '../providers/http.js';
import type { ProviderConfig } from '../config/types.js';
import type { AbortState } from '../providers/abort.js';
import type { UpstreamResponse } from '../providers/types.js';

/** Reads the whole body; past `limit` bytes (`server.maxResponseBytes`) the body is destroyed and the call fails. */
export function readAll(upstream: UpstreamResponse, provider: ProviderConfig, signal: AbortState, limit: number): Promise<Buffer> {
  if (upstream.whole) return Promise.resolve(upstream.whole);
  const { body } = upstream;
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
      reject(transportError(new AnswerTooLarge(limit), provider, signal));
    });
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    body.once('error', (err) => reject(transportError(err, provider, signal)));
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
