/**
 * Requests node:http refuses before they reach the handler (headers too large,
 * malformed HTTP, a client too slow to send its request) still get an answer in
 * the caller's error shape, not Node's bare status line. The protocol is guessed
 * from what arrived, as for any request that fails before routing.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayError } from '../errors.js';
import { renderError } from '../protocols/errors.js';
import { likelyProtocol, protocols } from '../protocols/registry.js';

interface ClientError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

export function answerClientError(err: ClientError, socket: Duplex): void {
  // A reset or an already answered socket has nobody to read an answer.
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new GatewayError('request_too_large', 'The request headers are larger than the gateway accepts (16 KB).', { status: 431 })
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new GatewayError('timeout', 'The request took too long to arrive; the gateway closed the connection.', { status: 408 })
        : new GatewayError('invalid_request', `The gateway could not read this HTTP request (${err.code ?? 'malformed'}).`);
  const raw = err.rawPacket;
  // The request line and headers never parsed: a guess from the raw bytes picks the error shape.
  const text = raw === undefined ? '' : raw.toString('latin1').toLowerCase();
  const path = /^[a-z]+ (\S+)/.exec(text)?.[1] ?? '';
  const caller = likelyProtocol(path, (name) => text.includes(`\n${name}:`));
  const rendered = renderError(error, protocols[caller].errorFamily, { requestId: 'req_unread' });
  const head = [`HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? ''}`];
  for (const [name, value] of Object.entries(rendered.headers)) head.push(`${name}: ${value}`);
  head.push(`content-length: ${Buffer.byteLength(rendered.body)}`, 'connection: close');
  socket.end(`${head.join('\r\n')}\r\n\r\n${rendered.body}`);
}
