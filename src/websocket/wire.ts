/**
 * The seam between a WebSocket message and the pipeline: each `response.create` is served as a
 * POST to /v1/responses would be, by the same handler, with a request made from the message (the
 * upgrade's headers, the message as body) and a response whose bytes become WebSocket messages
 * (each server-sent event's data is one text message; an error answered before a stream started
 * becomes one `error` message with its status). The pipeline reads and writes only the parts of
 * node's request and response these provide.
 */
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable, Writable } from 'node:stream';
import type { Transport } from '../log/record.js';

/** Headers of the upgrade that describe the WebSocket handshake or the body, not the caller. */
const HANDSHAKE_HEADERS = new Set([
  'connection',
  'upgrade',
  'content-length',
  'content-type',
  'transfer-encoding',
  'expect',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
]);

/** The POST a message stands for: the upgrade's own headers (Host, Origin, key, client headers) and the message's body. */
class MessageRequest extends Readable {
  readonly method = 'POST';
  readonly url = '/v1/responses';
  readonly httpVersion = '1.1';
  readonly httpVersionMajor = 1;
  readonly httpVersionMinor = 1;
  readonly complete = true;
  /** Read by the record (pipeline/events.ts): the request came as a WebSocket message. */
  readonly transport: Transport = 'websocket';
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: string[];
  /** The upgraded connection: read for the caller's address only. */
  readonly socket: Socket;

  constructor(upgrade: IncomingMessage, body: Buffer) {
    super();
    this.socket = upgrade.socket;
    const headers: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(upgrade.headers)) {
      if (!HANDSHAKE_HEADERS.has(name)) headers[name] = value;
    }
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
    this.headers = headers;
    const raw: string[] = [];
    for (let i = 0; i < upgrade.rawHeaders.length; i += 2) {
      const name = upgrade.rawHeaders[i]!;
      if (!HANDSHAKE_HEADERS.has(name.toLowerCase())) raw.push(name, upgrade.rawHeaders[i + 1]!);
    }
    raw.push('content-type', 'application/json', 'content-length', String(body.length));
    this.rawHeaders = raw;
    this.push(body);
    this.push(null);
  }

  override _read(): void {}
}

export function messageRequest(upgrade: IncomingMessage, body: Buffer): IncomingMessage {
  // The pipeline takes node's types; this gives it every member it reads (see above).
  return new MessageRequest(upgrade, body) as unknown as IncomingMessage;
}

/** Where a message's response goes, in WebSocket messages. */
export interface EventSink {
  /** One event's JSON text; `done` once the client's socket has taken it. */
  send(text: string, done: () => void): void;
  /** The answer was not a stream (an error before it started): its status, head and body. */
  answer(status: number, headers: OutgoingHttpHeaders, body: string): void;
}

/** A head of this type starts a stream. */
const EVENT_STREAM = /^text\/event-stream/i;

/**
 * The response the pipeline writes to. A stream (an event-stream head) is cut into events and
 * each event's data goes out as one message; anything else is kept whole for `answer`. The
 * write callback waits for the socket, so a client that reads slowly pauses the upstream as an
 * HTTP client would.
 */
class EventResponse extends Writable {
  statusCode = 200;
  headersSent = false;
  /** No socket of its own: the relays then wait for this stream's 'drain'. */
  readonly socket = null;
  private streaming = false;
  private head: OutgoingHttpHeaders = {};
  private pending = '';
  private readonly whole: Buffer[] = [];

  constructor(private readonly sink: EventSink) {
    super();
  }

  writeHead(status: number, headers?: OutgoingHttpHeaders): this {
    this.statusCode = status;
    this.headersSent = true;
    this.head = headers ?? {};
    const type = headers?.['content-type'];
    this.streaming = status < 300 && typeof type === 'string' && EVENT_STREAM.test(type);
    return this;
  }

  flushHeaders(): void {}

  writeContinue(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.streaming) {
      this.whole.push(chunk);
      callback();
      return;
    }
    this.pending += chunk.toString('utf8').replace(/\r\n?/g, '\n');
    const events = this.pending.split('\n\n');
    this.pending = events.pop()!;
    this.sendAll(events, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.streaming) {
      this.sink.answer(this.statusCode, this.head, Buffer.concat(this.whole).toString('utf8'));
      callback();
      return;
    }
    this.sendAll(this.pending.trim() === '' ? [] : [this.pending], callback);
    this.pending = '';
  }

  private sendAll(events: readonly string[], callback: () => void): void {
    const texts: string[] = [];
    for (const event of events) {
      const data = dataOf(event);
      if (data !== undefined && data !== '[DONE]') texts.push(data);
    }
    if (texts.length === 0) {
      callback();
      return;
    }
    let left = texts.length;
    const sent = () => {
      if (--left === 0) callback();
    };
    for (const text of texts) this.sink.send(text, sent);
  }
}

export function eventResponse(sink: EventSink): ServerResponse {
  // As for the request: the members the pipeline uses, on a plain Writable.
  return new EventResponse(sink) as unknown as ServerResponse;
}

/** The data of one server-sent event (its `data:` lines joined), or undefined when it has none. */
export function dataOf(event: string): string | undefined {
  let data: string | undefined;
  for (const line of event.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const value = line.charCodeAt(5) === 0x20 ? line.slice(6) : line.slice(5);
    data = data === undefined ? value : `${data}\n${value}`;
  }
  return data;
}
