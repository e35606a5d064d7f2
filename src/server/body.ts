/**
 * Reads a request body up to a size limit. A declared length over the limit is
 * refused before reading a byte; a chunked body is refused as soon as it passes
 * the limit. Either way the connection is closed after the answer, so the rest
 * of an oversized upload is never buffered.
 */
import type { IncomingMessage } from 'node:http';
import { GatewayError, invalidRequest } from '../errors.js';

function tooLarge(limit: number): GatewayError {
  return new GatewayError('request_too_large', `Request body is larger than the gateway's limit of ${limit} bytes.`, {
    headers: { connection: 'close' },
  });
}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw invalidRequest('The request body is empty; send a JSON object.');
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch (err) {
    throw invalidRequest(`The request body is not valid JSON: ${(err as Error).message}`);
  }
}
