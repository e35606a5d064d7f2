/**
 * One WebSocket connection to /v1/responses: its messages, one response at a time. A
 * `response.create` is served by the pipeline exactly as the POST it stands for (wire.ts), after
 * its `previous_response_id` is resolved against the connection's last response (chain.ts).
 * Whatever the client sends that cannot be served (binary frames, invalid JSON, unknown types, a
 * second response while one runs) is answered with an `error` message and the connection stays.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { RawData, WebSocket } from 'ws';
import { GatewayError, invalidRequest } from '../errors.js';
import { openaiErrorObject } from '../protocols/errors.js';
import { continueFrom, inputItems, type LastResponse, TurnFollower } from './chain.js';
import { eventResponse, type EventSink, messageRequest } from './wire.js';

export interface Connection {
  readonly socket: WebSocket;
  /** The upgrade request: its headers go with every message, as a POST's would. */
  readonly upgrade: IncomingMessage;
  /** Serves one request the way the server serves a POST (the same handler, counted the same). */
  readonly dispatch: (req: IncomingMessage, res: ServerResponse) => void;
  /** The current config's cap on a request body; it also caps what the connection remembers. */
  readonly maxBodyBytes: () => number;
  /** How long the connection may stay silent between responses. */
  readonly idleMs: number;
  /** How long the connection may stay open: past it, it is closed once no response is running. */
  readonly maxLifetimeMs: number;
}

/**
 * The close reasons a client may read. A connection past its lifetime is closed between responses,
 * never during one, so the client loses nothing and reconnects, as it must with OpenAI's own
 * WebSocket connections, which end at a fixed lifetime too.
 */
const IDLE = 'idle timeout';
const LIFETIME = 'connection lifetime reached';

/** The event types `TurnFollower` reads (a text that merely quotes one is parsed and ignored). */
const FOLLOWED = /"(?:response\.output_item\.done|response\.completed|response\.failed|response\.incomplete|error)"/;

/** Headers of a refused request that a client acts on, carried in the `error` message. */
const ERROR_HEADERS = ['retry-after', 'retry-after-ms', 'x-request-id'];

export function serveConnection(c: Connection): void {
  const { socket } = c;
  let last: LastResponse | undefined;
  let running: ServerResponse | undefined;
  let idle: NodeJS.Timeout | undefined;
  let expired = false;
  const waitForNext = () => {
    clearTimeout(idle);
    idle = setTimeout(() => socket.close(1000, IDLE), c.idleMs);
    idle.unref();
  };
  const lifetime = setTimeout(() => {
    expired = true;
    if (!running) socket.close(1000, LIFETIME);
  }, c.maxLifetimeMs);
  lifetime.unref();
  const fail = (err: GatewayError) => socket.send(JSON.stringify(errorMessage(err.status, { error: openaiErrorObject(err) }, {})));

  const create = (message: Record<string, unknown>) => {
    if (running) throw invalidRequest('A response is already in progress on this connection; send the next response.create once it has ended.', undefined, 'response_in_progress');
    if (message.background === true) throw invalidRequest('background is not supported over WebSocket.', 'background');
    const { type: _type, generate, ...fields } = message;
    const body = continueFrom(fields, last);
    body.stream = true;
    // The last response is replaced by this one, or forgotten if this one fails.
    last = undefined;
    const follower = new TurnFollower(inputItems(body.input));
    if (generate === false) {
      for (const event of warmUp(body)) {
        follower.see(event);
        socket.send(JSON.stringify(event));
      }
      last = follower.remembered(c.maxBodyBytes());
      return;
    }
    const sink: EventSink = {
      send(text, done) {
        // Only the events that end a response or complete an item matter to it: the deltas are not parsed again.
        if (FOLLOWED.test(text)) follower.see(parsed(text));
        socket.send(text, () => done());
      },
      answer(status, headers, text) {
        const event = status >= 300 ? errorMessage(status, parsed(text), headers) : completedFrom(parsed(text));
        follower.see(event);
        socket.send(JSON.stringify(event));
      },
    };
    const res = eventResponse(sink);
    running = res;
    clearTimeout(idle);
    res.once('close', () => {
      running = undefined;
      if (socket.readyState !== socket.OPEN) return;
      // Sent after the response's last message, which the socket sends first.
      if (expired) {
        socket.close(1000, LIFETIME);
        return;
      }
      last = follower.remembered(c.maxBodyBytes());
      waitForNext();
    });
    c.dispatch(messageRequest(c.upgrade, Buffer.from(JSON.stringify(body))), res);
  };

  socket.on('message', (data: RawData, isBinary: boolean) => {
    // A message that crossed the gateway's close starts nothing: the client will send it again on a new connection.
    if (socket.readyState !== socket.OPEN) return;
    if (!running) waitForNext();
    try {
      if (isBinary) throw invalidRequest('Binary messages are not accepted: send each event as JSON text.');
      const message = parseMessage(data);
      switch (message.type) {
        case 'response.create':
          return create(message);
        case 'response.processed':
          // Codex acknowledges each response it has handled; there is nothing to do with it.
          return;
        default:
          throw invalidRequest(`Unknown event type '${printableType(message.type)}': this connection takes response.create.`, 'type');
      }
    } catch (err) {
      fail(err instanceof GatewayError ? err : new GatewayError('internal', 'The gateway failed to handle this message.', { cause: err }));
    }
  });
  socket.on('close', () => {
    clearTimeout(idle);
    clearTimeout(lifetime);
    last = undefined;
    // A response still running ends as an HTTP one does when its client leaves: the upstream call is cancelled.
    running?.destroy();
  });
  // 'error' is followed by 'close'; without a listener it would throw.
  socket.on('error', () => {});
  waitForNext();
}

function parseMessage(data: RawData): Record<string, unknown> {
  const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw invalidRequest('The message is not valid JSON.');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) throw invalidRequest('The message must be a JSON object with a type.');
  return message as Record<string, unknown>;
}

const printableType = (type: unknown) => String(type).slice(0, 60).replace(/[^\x20-\x7e]/g, '?');

function parsed(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null) return value as Record<string, unknown>;
  } catch {}
  return { error: { type: 'api_error', message: text.slice(0, 1000) } };
}

/**
 * A request refused before its stream started, as OpenAI's WebSocket mode reports it: an `error`
 * message with the HTTP status it would have had (Codex reads it as that HTTP error, and retries
 * or falls back on the same statuses).
 */
function errorMessage(status: number, body: Record<string, unknown>, headers: OutgoingHttpHeaders): Record<string, unknown> {
  const carried: Record<string, string> = {};
  for (const name of ERROR_HEADERS) {
    const value = headers[name];
    if (value !== undefined) carried[name] = String(value);
  }
  return {
    type: 'error',
    status,
    error: body.error ?? body,
    ...(Object.keys(carried).length > 0 ? { headers: carried } : {}),
  };
}

/** A whole answer where a stream was asked for (a route that cannot stream): its response, completed. */
function completedFrom(response: Record<string, unknown>): Record<string, unknown> {
  return { type: 'response.completed', response };
}

/**
 * `generate: false` (Codex's warm-up): nothing is generated, so no upstream is called; the
 * response completes at once with no output, and the next request may continue from it with
 * only its new input.
 */
function warmUp(body: Record<string, unknown>): Record<string, unknown>[] {
  const response = {
    id: `resp_${randomBytes(12).toString('hex')}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: body.model,
    output: [],
  };
  return [
    { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress' } },
    { type: 'response.completed', sequence_number: 1, response: { ...response, status: 'completed' } },
  ];
}
