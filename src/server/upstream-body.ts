/** Reading an upstream body whole: for JSON answers, and for error bodies (bounded). */
import { transportError } from '../providers/http.js';
import type { ProviderConfig } from '../config/types.js';
import type { AbortState } from '../providers/abort.js';
import type { UpstreamBody } from '../providers/types.js';

export function readAll(body: UpstreamBody, provider: ProviderConfig, signal: AbortState): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (c: Buffer) => chunks.push(c));
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    body.once('error', (err) => reject(transportError(err, provider, signal)));
  });
}

/** Reads up to `limit` bytes as text and discards the rest, so the connection can be reused. */
export function readText(body: UpstreamBody, limit: number, signal: AbortSignal): Promise<string> {
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
