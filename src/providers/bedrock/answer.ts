/**
 * Bedrock's answers as the gateway reads a Messages upstream's (`HttpHooks.answer`):
 * - a stream of event-stream messages becomes Anthropic's server-sent events, each chunk's base64
 *   `bytes` one event; an exception before the first chunk becomes an HTTP error answer (so it is
 *   retried or falls back like any 429/5xx), one after it an Anthropic `error` event;
 * - CountTokens' `{inputTokens}` becomes Anthropic's `{input_tokens}`;
 * - an error answer's `{message}` becomes Anthropic's error body, so a Messages caller reads the
 *   shape it knows when the gateway passes the answer on.
 * Chat answers (Bedrock's OpenAI-compatible endpoint) are OpenAI's already and pass as they are.
 */
import { Readable } from 'node:stream';
import type { Message } from '@smithy/eventstream-codec';
import type { UrlCall } from '../http.js';
import { ERROR_BODY_LIMIT, type UpstreamResponse } from '../types.js';
import { parseErrorBody } from '../upstream-error.js';
import { errorTypeName, streamExceptionMeaning } from './errors.js';
import { decodeFrame, type FrameCodec, FrameReader, frameCodec, UnreadableAnswer, stringHeader } from './event-stream.js';

type Headers = UpstreamResponse['headers'];

export async function bedrockAnswer(answer: UpstreamResponse, call: UrlCall): Promise<UpstreamResponse> {
  if (call.protocol !== 'messages') return answer;
  if (answer.status >= 400) return anthropicErrorAnswer(answer);
  if (call.operation === 'count_tokens') return countAnswer(answer);
  const type = answer.headers['content-type'];
  if (typeof type === 'string' && type.startsWith('application/vnd.amazon.eventstream')) return streamAnswer(answer);
  return answer;
}

/** A message body's text, read in place. */
const utf8 = (body: Uint8Array): string => Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');

/** What one event-stream message carries. */
type Frame =
  | { readonly kind: 'event'; readonly sse: string }
  | { readonly kind: 'exception'; readonly name: string; readonly message: string }
  | { readonly kind: 'other' };

function frameOf(message: Message): Frame {
  const messageType = stringHeader(message, ':message-type');
  if (messageType === 'exception') {
    const name = stringHeader(message, ':exception-type') ?? 'unknownException';
    return { kind: 'exception', name, message: parseErrorBody(utf8(message.body)).message ?? name };
  }
  if (messageType === 'error') {
    const name = stringHeader(message, ':error-code') ?? 'unknownError';
    return { kind: 'exception', name, message: stringHeader(message, ':error-message') ?? name };
  }
  if (messageType !== 'event' || stringHeader(message, ':event-type') !== 'chunk') return { kind: 'other' };
  return { kind: 'event', sse: sseEvent(Buffer.from(chunkBytes(utf8(message.body)), 'base64').toString('utf8')) };
}

const BYTES_KEY = '{"bytes":"';

/**
 * A chunk's base64 `bytes`. Bedrock writes that key first (then, on some answers, a padding field):
 * base64 holds no quote, so the value ends at the next quote; any other shape, or an escaped value, is parsed.
 */
function chunkBytes(json: string): string {
  if (json.startsWith(BYTES_KEY)) {
    const end = json.indexOf('"', BYTES_KEY.length);
    const value = end === -1 ? undefined : json.slice(BYTES_KEY.length, end);
    // An escape (`\/` is legal JSON) means the value is not plain: the parser reads it.
    if (value !== undefined && !value.includes('\\')) return value;
  }
  const { bytes } = parseJson(json) as { bytes?: unknown };
  if (typeof bytes !== 'string') throw new UnreadableAnswer('a Bedrock chunk without its bytes');
  return bytes;
}

// Anthropic's events start with their type; reading it from the front spares parsing every event.
const LEADING_TYPE = /^\{"type":"([a-z_]+)"/;
const EVENT_TYPE = /^[a-z_]{1,64}$/;

/**
 * One Anthropic event as a server-sent event. An event of another shape, or with a line break that
 * would cut its `data:` line, is parsed and written compactly; a type that is not a plain name fails.
 */
function sseEvent(data: string): string {
  const leading = data.includes('\n') || data.includes('\r') ? null : LEADING_TYPE.exec(data);
  if (leading) return sse(leading[1]!, data);
  const event = parseJson(data) as { type?: unknown } | null;
  if (typeof event?.type !== 'string' || !EVENT_TYPE.test(event.type)) throw new UnreadableAnswer('a Bedrock chunk whose event has no type');
  return sse(event.type, JSON.stringify(event));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UnreadableAnswer('a Bedrock chunk that is not JSON');
  }
}

const sse = (type: string, data: string): string => `event: ${type}\ndata: ${data}\n\n`;

function errorEvent(frame: { readonly name: string; readonly message: string }): string {
  const error = { type: streamExceptionMeaning(frame.name).anthropicType, message: frame.message };
  return sse('error', JSON.stringify({ type: 'error', error }));
}

/** Headers the gateway passes on, without the ones that described Bedrock's bytes. */
function keptHeaders(headers: Headers, contentType: string): Record<string, string | string[] | undefined> {
  const { 'content-type': _type, 'content-length': _length, ...rest } = headers;
  return { ...rest, 'content-type': contentType };
}

/**
 * Event-stream bytes in, Anthropic's server-sent events out: each upstream chunk's messages are
 * decoded at once and handed on as one chunk, synchronously, so an event costs no promise or turn
 * of the event loop of its own, and no stream stands between the upstream's body and this one but
 * its own `'data'` events (paused while this one's reader is full). `first` settles with the first
 * chunk or exception; until then nothing has been decided about the answer.
 */
class EventStreamToSse extends Readable {
  private readonly reader = new FrameReader();
  private started = false;
  private over = false;
  private ended = false;
  private settle: ((frame: Frame) => void) | undefined;
  readonly first = new Promise<Frame>((resolve) => {
    this.settle = resolve;
  });

  constructor(
    private readonly source: Readable,
    private readonly codec: FrameCodec,
  ) {
    super();
    source.on('data', (chunk: Buffer) => this.onData(chunk));
    source.once('end', () => this.onEnd());
    source.once('error', (err) => this.destroy(err));
    // Closed without its end or an error (destroyed): this stream, and anyone waiting for its first message, must hear of it.
    source.once('close', () => {
      if (!this.ended && !this.destroyed) this.destroy(new UnreadableAnswer('the event stream closed before its end'));
    });
  }

  override _read(): void {
    this.source.resume();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    // The client left, or the stream broke: the upstream's body goes too.
    this.source.destroy();
    done(err);
  }

  private onData(chunk: Buffer): void {
    // After an exception the stream is over: whatever else the upstream sends is dropped.
    if (this.over || this.destroyed) return;
    let out = '';
    try {
      for (const bytes of this.reader.push(chunk)) {
        const frame = frameOf(decodeFrame(this.codec, bytes));
        if (frame.kind === 'other') continue;
        this.starting(frame);
        if (frame.kind === 'exception') {
          // Before the first chunk the answer becomes an HTTP error (streamAnswer); after it, the caller's error event.
          if (this.started) out += errorEvent(frame);
          this.over = true;
          break;
        }
        out += frame.sse;
      }
    } catch (err) {
      this.destroy(err as Error);
      return;
    }
    if (out.length > 0 && !this.push(out)) this.source.pause();
    if (this.over) this.push(null);
  }

  private onEnd(): void {
    this.ended = true;
    if (this.over || this.destroyed) return;
    if (this.reader.leftover > 0) {
      this.destroy(new UnreadableAnswer(`the event stream ended inside a message (${this.reader.leftover} bytes left)`));
      return;
    }
    this.starting({ kind: 'other' });
    this.push(null);
  }

  private starting(frame: Frame): void {
    if (this.settle === undefined) return;
    this.settle(frame);
    this.settle = undefined;
    this.started = frame.kind === 'event';
  }
}

async function streamAnswer(answer: UpstreamResponse): Promise<UpstreamResponse> {
  const body = new EventStreamToSse(answer.body, await frameCodec());
  // An exception before the first chunk has sent the caller nothing: it is an error answer.
  const first = await Promise.race([body.first, new Promise<never>((_, reject) => body.once('error', reject))]);
  if (first.kind === 'exception') {
    body.destroy();
    const meaning = streamExceptionMeaning(first.name);
    const error = anthropicErrorBody(meaning.anthropicType, first.message);
    return wholeAnswer(meaning.status, { ...keptHeaders(answer.headers, 'application/json'), 'x-amzn-errortype': capitalised(first.name) }, error);
  }
  return { status: answer.status, headers: keptHeaders(answer.headers, 'text/event-stream'), body };
}

/** `throttlingException` as the header spells it, `ThrottlingException`. */
const capitalised = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

async function countAnswer(answer: UpstreamResponse): Promise<UpstreamResponse> {
  // A count is a few bytes; the error bodies' bound is ample.
  const text = (await readBody(answer, ERROR_BODY_LIMIT)).toString('utf8');
  const { inputTokens } = parseJson(text) as { inputTokens?: unknown };
  if (typeof inputTokens !== 'number') throw new UnreadableAnswer('Bedrock CountTokens answered without inputTokens');
  return wholeAnswer(answer.status, keptHeaders(answer.headers, 'application/json'), Buffer.from(JSON.stringify({ input_tokens: inputTokens })));
}

async function anthropicErrorAnswer(answer: UpstreamResponse): Promise<UpstreamResponse> {
  const text = (await readBody(answer, ERROR_BODY_LIMIT)).toString('utf8');
  const parsed = parseErrorBody(text);
  if (parsed.message === undefined) return wholeAnswer(answer.status, answer.headers, Buffer.from(text));
  const name = errorTypeName(answer.headers['x-amzn-errortype']);
  const type = answer.status === 401 || answer.status === 403 ? 'authentication_error' : name === undefined ? anthropicTypeOf(answer.status) : streamExceptionMeaning(name).anthropicType;
  return wholeAnswer(answer.status, keptHeaders(answer.headers, 'application/json'), anthropicErrorBody(type, parsed.message));
}

/** Anthropic's error type for an HTTP status, for an error answer that names no AWS error. */
function anthropicTypeOf(status: number): string {
  if (status === 400) return 'invalid_request_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  return 'api_error';
}

const anthropicErrorBody = (type: string, message: string): Buffer => Buffer.from(JSON.stringify({ type: 'error', error: { type, message } }));

function wholeAnswer(status: number, headers: Headers, body: Buffer): UpstreamResponse {
  return { status, headers: { ...headers, 'content-length': String(body.length) }, body: Readable.from([body]), whole: body };
}

/** The answer's body, up to `limit` bytes (the rest read and dropped). */
async function readBody(answer: UpstreamResponse, limit: number): Promise<Buffer> {
  if (answer.whole) return answer.whole.length > limit ? answer.whole.subarray(0, limit) : answer.whole;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer.body as AsyncIterable<Buffer>) {
    if (size < limit) chunks.push(chunk);
    size += chunk.length;
  }
  const all = Buffer.concat(chunks);
  return all.length > limit ? all.subarray(0, limit) : all;
}
