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
import type { UrlCall } from '../http.js';
import { type FedBody, type UpstreamControl, UpstreamFedBody } from '../streamed-answer.js';
import { ERROR_BODY_LIMIT, type UpstreamResponse } from '../types.js';
import { parseErrorBody } from '../upstream-error.js';
import { errorTypeName, streamExceptionMeaning } from './errors.js';
import { bodyStart, FrameReader, headerParser, type HeaderParser, MessageChecker, stringHeader, UnreadableAnswer } from './event-stream.js';

type Headers = UpstreamResponse['headers'];

export async function bedrockAnswer(answer: UpstreamResponse, call: UrlCall): Promise<UpstreamResponse> {
  if (call.protocol !== 'messages') return answer;
  if (answer.status >= 400) return anthropicErrorAnswer(answer);
  if (call.operation === 'count_tokens') return countAnswer(answer);
  return isEventStream(answer.headers) ? streamAnswer(answer) : answer;
}

/** What one event-stream message carries. */
type Frame =
  | { readonly kind: 'event'; readonly sse: Buffer }
  | { readonly kind: 'exception'; readonly name: string; readonly message: string }
  | { readonly kind: 'other' };

const OTHER: Frame = { kind: 'other' };

function frameOf(checker: MessageChecker, bytes: Buffer): Frame {
  const headers = checker.headers(bytes);
  const messageType = stringHeader(headers, ':message-type');
  if (messageType === 'exception') {
    const name = stringHeader(headers, ':exception-type') ?? 'unknownException';
    return { kind: 'exception', name, message: parseErrorBody(bytes.toString('utf8', bodyStart(bytes), bytes.length - 4)).message ?? name };
  }
  if (messageType === 'error') {
    const name = stringHeader(headers, ':error-code') ?? 'unknownError';
    return { kind: 'exception', name, message: stringHeader(headers, ':error-message') ?? name };
  }
  if (messageType !== 'event' || stringHeader(headers, ':event-type') !== 'chunk') return OTHER;
  return { kind: 'event', sse: sseEvent(chunkBytes(bytes, bodyStart(bytes), bytes.length - 4)) };
}

const BYTES_KEY = Buffer.from('{"bytes":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The event a chunk carries, decoded from its base64 `bytes` (the body between `start` and `end`).
 * Bedrock writes that key first (then, on some answers, a padding field): base64 holds no quote,
 * so the value ends at the next quote and is decoded from the bytes in place; any other shape, or
 * an escaped value, is parsed.
 */
function chunkBytes(body: Buffer, start: number, end: number): Buffer {
  const from = start + BYTES_KEY.length;
  if (from <= end && startsWith(body, start, BYTES_KEY)) {
    const quote = body.indexOf(QUOTE, from);
    // An escape (`\/` is legal JSON) means the value is not plain: the parser reads it.
    const escaped = body.indexOf(BACKSLASH, from);
    if (quote !== -1 && quote < end && (escaped === -1 || escaped > quote)) return Buffer.from(body.toString('latin1', from, quote), 'base64');
  }
  const { bytes } = parseJson(body.toString('utf8', start, end)) as { bytes?: unknown };
  if (typeof bytes !== 'string') throw new UnreadableAnswer('a Bedrock chunk without its bytes');
  return Buffer.from(bytes, 'base64');
}

// Anthropic's events start with their type; reading it from the front spares parsing every event.
const TYPE_KEY = Buffer.from('{"type":"');
const EVENT_TYPE = /^[a-z_]{1,64}$/;
const EVENT_FIELD = Buffer.from('event: ');
const DATA_FIELD = Buffer.from('\ndata: ');
const LF = 0x0a;
const CR = 0x0d;

/** Where the plain name (`[a-z_]+`) after `{"type":"` at the front of `data` ends; -1 when it is not there. */
function leadingTypeEnd(data: Buffer): number {
  if (data.length <= TYPE_KEY.length || !startsWith(data, 0, TYPE_KEY)) return -1;
  let at = TYPE_KEY.length;
  for (; at < data.length; at++) {
    const c = data[at]!;
    if (c === QUOTE) break;
    // a-z and _
    if ((c < 0x61 || c > 0x7a) && c !== 0x5f) return -1;
  }
  return at === TYPE_KEY.length || at === data.length ? -1 : at;
}

/**
 * One Anthropic event as a server-sent event, built as bytes: its JSON goes out as it came. An
 * event of another shape, or with a line break that would cut its `data:` line, is parsed and
 * written compactly; a type that is not a plain name fails.
 */
function sseEvent(data: Buffer): Buffer {
  const typeEnd = data.includes(LF) || data.includes(CR) ? -1 : leadingTypeEnd(data);
  if (typeEnd === -1) {
    const event = parseJson(data.toString('utf8')) as { type?: unknown } | null;
    if (typeof event?.type !== 'string' || !EVENT_TYPE.test(event.type)) throw new UnreadableAnswer('a Bedrock chunk whose event has no type');
    return Buffer.from(sse(event.type, JSON.stringify(event)));
  }
  const typeLength = typeEnd - TYPE_KEY.length;
  const out = Buffer.allocUnsafe(EVENT_FIELD.length + typeLength + DATA_FIELD.length + data.length + 2);
  // The few bytes around the JSON are copied here: a native call per field costs more than the copy.
  let at = 0;
  for (let i = 0; i < EVENT_FIELD.length; i++) out[at++] = EVENT_FIELD[i]!;
  for (let i = TYPE_KEY.length; i < typeEnd; i++) out[at++] = data[i]!;
  for (let i = 0; i < DATA_FIELD.length; i++) out[at++] = DATA_FIELD[i]!;
  out.set(data, at);
  at += data.length;
  out[at] = LF;
  out[at + 1] = LF;
  return out;
}

/** Whether `bytes` holds `key` at `at`: compared here, as a native call costs more than a few bytes' loop. */
function startsWith(bytes: Buffer, at: number, key: Buffer): boolean {
  if (at + key.length > bytes.length) return false;
  for (let i = 0; i < key.length; i++) if (bytes[at + i] !== key[i]) return false;
  return true;
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

const isEventStream = (headers: Headers): boolean => {
  const type = headers['content-type'];
  return typeof type === 'string' && type.startsWith('application/vnd.amazon.eventstream');
};

/**
 * The body of a streamed Messages call (`HttpHooks.streamBody`): an event-stream answer is decoded
 * as undici reads it; any other answer keeps its bytes.
 */
export function bedrockStreamBody(call: UrlCall, status: number, headers: Headers, upstream: UpstreamControl): FedBody | undefined {
  if (call.protocol !== 'messages' || call.operation !== 'create' || status >= 400 || !isEventStream(headers)) return undefined;
  return new EventStreamToSse(upstream);
}

/**
 * Event-stream bytes in, Anthropic's server-sent events out, fed each chunk as undici reads it: its
 * messages are decoded at once and handed on as one chunk, synchronously, with no stream before
 * this one, so an event costs no promise or turn of the event loop of its own. Chunks that arrive
 * before `start` (with the answer's headers, before `bedrockAnswer` has the codec) wait for it.
 * `first` settles with the first chunk or exception; until then nothing has been decided about the answer.
 */
class EventStreamToSse extends UpstreamFedBody {
  private readonly reader = new FrameReader();
  private checker: MessageChecker | undefined = undefined;
  private early: Buffer[] | undefined = [];
  private earlyBytes = 0;
  private endedEarly = false;
  private started = false;
  private over = false;
  private settle: ((frame: Frame) => void) | undefined;
  readonly first = new Promise<Frame>((resolve) => {
    this.settle = resolve;
  });

  /** Decodes what came before the codec, and from now on each chunk as it comes. */
  start(parser: HeaderParser): void {
    this.checker = new MessageChecker(parser);
    const early = this.early!;
    const waited = this.earlyBytes >= this.readableHighWaterMark;
    this.early = undefined;
    for (const chunk of early) this.feed(chunk);
    if (this.endedEarly) this.finish();
    else if (waited && !this.destroyed) this.upstream.resume();
  }

  feed(chunk: Buffer): boolean {
    if (this.early !== undefined) {
      this.early.push(chunk);
      this.earlyBytes += chunk.length;
      return this.earlyBytes < this.readableHighWaterMark;
    }
    // After an exception the stream is over: whatever else the upstream sends is dropped.
    if (this.over || this.destroyed) return true;
    // Most upstream chunks hold one message: its event goes on as it is, several are joined.
    let out: Buffer | Buffer[] | undefined;
    try {
      for (const bytes of this.reader.push(chunk)) {
        const frame = frameOf(this.checker!, bytes);
        if (frame.kind === 'other') continue;
        this.starting(frame);
        let event: Buffer;
        if (frame.kind === 'exception') {
          // Before the first chunk the answer becomes an HTTP error (streamAnswer); after it, the caller's error event.
          this.over = true;
          if (!this.started) break;
          event = Buffer.from(errorEvent(frame));
        } else {
          event = frame.sse;
        }
        if (out === undefined) out = event;
        else if (Array.isArray(out)) out.push(event);
        else out = [out, event];
        if (this.over) break;
      }
    } catch (err) {
      this.destroy(err as Error);
      return true;
    }
    const more = out === undefined || this.push(Array.isArray(out) ? Buffer.concat(out) : out);
    if (this.over) this.push(null);
    return more;
  }

  finish(): void {
    if (this.early !== undefined) {
      // The upstream ended before `start`: the end waits with its chunks.
      this.endedEarly = true;
      return;
    }
    if (this.over || this.destroyed) return;
    if (this.reader.leftover > 0) {
      this.destroy(new UnreadableAnswer(`the event stream ended inside a message (${this.reader.leftover} bytes left)`));
      return;
    }
    this.starting(OTHER);
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
  // Every streamed call's body is made by bedrockStreamBody; any other reader of these bytes is a mistake.
  if (!(answer.body instanceof EventStreamToSse)) throw new UnreadableAnswer('an event stream where none was asked for');
  const body = answer.body;
  // An exception before the first chunk has sent the caller nothing: it is an error answer.
  const failed = new Promise<never>((_, reject) => body.once('error', reject));
  body.start(await headerParser());
  const first = await Promise.race([body.first, failed]);
  // A broken message in the same upstream chunk as the first: its error was emitted before anyone read
  // the body, and would reach no reader. Nothing has gone to the caller yet, so the call fails.
  if (body.errored) throw body.errored;
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
