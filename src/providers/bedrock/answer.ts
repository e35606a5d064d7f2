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
import { type FramedBody, framedBody, type FedBody, type StreamFraming, type UpstreamControl } from '../streamed-answer.js';
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

/** What one event-stream message carries: its event as server-sent event bytes (no object of its own per event), an exception, or nothing the caller gets. */
type Frame = Buffer | Exception | Other;
type Exception = { readonly kind: 'exception'; readonly name: string; readonly message: string };
type Other = { readonly kind: 'other' };

/** How a stream started: with an event, an exception, or neither (it ended first). */
type Start = { readonly kind: 'event' } | Exception | Other;

const OTHER: Other = { kind: 'other' };
const EVENT_START: Start = { kind: 'event' };

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
  return chunkEvent(bytes, bodyStart(bytes), bytes.length - 4);
}

const BYTES_KEY = Buffer.from('{"bytes":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The server-sent event a chunk carries, from its base64 `bytes` (the body between `start` and
 * `end`). Bedrock writes that key first (then, on some answers, a padding field): base64 holds no
 * quote, so the value ends at the next quote. Plain base64 is decoded from the bytes in place into
 * a scratch buffer, with no text or buffer of its own per event; any other shape, or an escaped
 * value, is parsed.
 */
function chunkEvent(body: Buffer, start: number, end: number): Buffer {
  const from = start + BYTES_KEY.length;
  if (from <= end && startsWith(body, start, BYTES_KEY)) {
    let quote = -1;
    let escaped = false;
    for (let i = from; i < end; i++) {
      const c = body[i]!;
      if (c === QUOTE) {
        quote = i;
        break;
      }
      // An escape (`\/` is legal JSON) means the value is not plain: the parser reads it.
      if (c === BACKSLASH) {
        escaped = true;
        break;
      }
    }
    if (quote !== -1) {
      const length = decodeBase64(body, from, quote);
      if (length !== -1) return sseEvent(scratch, length);
      // Base64 that is not plain (whitespace, the URL alphabet, a long value): Node's decoder, as lenient as before.
      const bytes = Buffer.from(body.toString('latin1', from, quote), 'base64');
      return sseEvent(bytes, bytes.length);
    }
    if (!escaped) throw new UnreadableAnswer('a Bedrock chunk that is not JSON');
  }
  const { bytes } = parseJson(body.toString('utf8', start, end)) as { bytes?: unknown };
  if (typeof bytes !== 'string') throw new UnreadableAnswer('a Bedrock chunk without its bytes');
  const decoded = Buffer.from(bytes, 'base64');
  return sseEvent(decoded, decoded.length);
}

/** Each byte's value in standard base64, 255 for a byte that is not in its alphabet. */
const BASE64_VALUES = (() => {
  const values = new Uint8Array(256).fill(255);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i++) values[alphabet.charCodeAt(i)] = i;
  return values;
})();
const PAD = 0x3d;

/**
 * Where `decodeBase64` writes. A chunk's event is copied out of it at once, so one serves every
 * stream; a value larger than it takes Node's decoder rather than a larger scratch kept for good.
 */
const SCRATCH_BYTES = 64 * 1024;
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

/**
 * `bytes[from, to)` decoded as plain base64 (the standard alphabet, padded to a multiple of four, as
 * Bedrock writes it) into `scratch`; the decoded length, or -1 for anything else, which Node's
 * decoder then reads as it always has. On plain base64 both give the same bytes.
 */
function decodeBase64(bytes: Buffer, from: number, to: number): number {
  const length = to - from;
  if ((length & 3) !== 0 || length === 0 || (length >> 2) * 3 > SCRATCH_BYTES) return -1;
  let pad = 0;
  if (bytes[to - 1] === PAD) pad = bytes[to - 2] === PAD ? 2 : 1;
  const whole = to - 4;
  const values = BASE64_VALUES;
  let out = 0;
  for (let i = from; i < whole; i += 4) {
    const a = values[bytes[i]!]!;
    const b = values[bytes[i + 1]!]!;
    const c = values[bytes[i + 2]!]!;
    const d = values[bytes[i + 3]!]!;
    // A value outside 0-63 has a bit above the sixth.
    if (((a | b | c | d) & 0xc0) !== 0) return -1;
    scratch[out++] = (a << 2) | (b >> 4);
    scratch[out++] = ((b & 15) << 4) | (c >> 2);
    scratch[out++] = ((c & 3) << 6) | d;
  }
  // The last quantum, with its padding.
  const a = values[bytes[whole]!]!;
  const b = values[bytes[whole + 1]!]!;
  const c = pad === 2 ? 0 : values[bytes[whole + 2]!]!;
  const d = pad >= 1 ? 0 : values[bytes[whole + 3]!]!;
  if (((a | b | c | d) & 0xc0) !== 0) return -1;
  scratch[out++] = (a << 2) | (b >> 4);
  if (pad < 2) scratch[out++] = ((b & 15) << 4) | (c >> 2);
  if (pad < 1) scratch[out++] = ((c & 3) << 6) | d;
  return out;
}

// Anthropic's events start with their type; reading it from the front spares parsing every event.
const TYPE_KEY = Buffer.from('{"type":"');
const EVENT_TYPE = /^[a-z_]{1,64}$/;
const EVENT_FIELD = Buffer.from('event: ');
const DATA_FIELD = Buffer.from('\ndata: ');
const LF = 0x0a;
const CR = 0x0d;

/** Where the plain name (`[a-z_]+`) after `{"type":"` at the front of `data[0, length)` ends; -1 when it is not there. */
function leadingTypeEnd(data: Buffer, length: number): number {
  if (length <= TYPE_KEY.length || !startsWith(data, 0, TYPE_KEY)) return -1;
  let at = TYPE_KEY.length;
  for (; at < length; at++) {
    const c = data[at]!;
    if (c === QUOTE) break;
    // a-z and _
    if ((c < 0x61 || c > 0x7a) && c !== 0x5f) return -1;
  }
  return at === TYPE_KEY.length || at === length ? -1 : at;
}

/** Whether `data[0, length)` holds a line break, which would cut a `data:` line. */
function hasLineBreak(data: Buffer, length: number): boolean {
  for (let i = 0; i < length; i++) {
    const c = data[i]!;
    if (c === LF || c === CR) return true;
  }
  return false;
}

/**
 * One Anthropic event (the JSON in `data[0, length)`, which may be the scratch buffer) as a
 * server-sent event of its own, built as bytes: its JSON goes out as it came. An event of another
 * shape, or with a line break that would cut its `data:` line, is parsed and written compactly; a
 * type that is not a plain name fails.
 */
function sseEvent(data: Buffer, length: number): Buffer {
  const typeEnd = hasLineBreak(data, length) ? -1 : leadingTypeEnd(data, length);
  if (typeEnd === -1) {
    const event = parseJson(data.toString('utf8', 0, length)) as { type?: unknown } | null;
    if (typeof event?.type !== 'string' || !EVENT_TYPE.test(event.type)) throw new UnreadableAnswer('a Bedrock chunk whose event has no type');
    return Buffer.from(sse(event.type, JSON.stringify(event)));
  }
  const typeLength = typeEnd - TYPE_KEY.length;
  const out = Buffer.allocUnsafe(EVENT_FIELD.length + typeLength + DATA_FIELD.length + length + 2);
  // The bytes are copied here rather than by a native call: that would take a view of the
  // source to be made first, an object per event, and a few hundred bytes' loop costs less.
  let at = 0;
  for (let i = 0; i < EVENT_FIELD.length; i++) out[at++] = EVENT_FIELD[i]!;
  for (let i = TYPE_KEY.length; i < typeEnd; i++) out[at++] = data[i]!;
  for (let i = 0; i < DATA_FIELD.length; i++) out[at++] = DATA_FIELD[i]!;
  for (let i = 0; i < length; i++) out[at++] = data[i]!;
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
  return framedBody(upstream, new EventStreamToSse(upstream));
}

/**
 * Event-stream bytes in, Anthropic's server-sent events out, fed each chunk as undici reads it: its
 * messages are decoded at once and handed on as one chunk, synchronously, with no stream before
 * this one, so an event costs no promise or turn of the event loop of its own. Chunks that arrive
 * before `start` (with the answer's headers, before `bedrockAnswer` has the codec) wait for it.
 * `first` settles with the first chunk or exception; until then nothing has been decided about the answer.
 * A framing rather than a body of its own: the body is the one every streamed answer has
 * (`framedBody`), so the stream code every answer runs through sees one shape of body.
 */
class EventStreamToSse implements StreamFraming {
  private readonly reader = new FrameReader();
  private checker: MessageChecker | undefined = undefined;
  private early: Buffer[] | undefined = [];
  private earlyBytes = 0;
  private endedEarly = false;
  private started = false;
  private over = false;
  private settle: ((start: Start) => void) | undefined;
  readonly first = new Promise<Start>((resolve) => {
    this.settle = resolve;
  });

  constructor(private readonly upstream: UpstreamControl) {}

  /** Decodes what came before the codec, and from now on each chunk as it comes. */
  start(parser: HeaderParser, body: FramedBody): void {
    this.checker = new MessageChecker(parser);
    const early = this.early!;
    const waited = this.earlyBytes >= body.readableHighWaterMark;
    this.early = undefined;
    for (const chunk of early) this.feed(chunk, body);
    if (this.endedEarly) this.finish(body);
    else if (waited && !body.destroyed) this.upstream.resume();
  }

  feed(chunk: Buffer, body: FramedBody): boolean {
    if (this.early !== undefined) {
      this.early.push(chunk);
      this.earlyBytes += chunk.length;
      return this.earlyBytes < body.readableHighWaterMark;
    }
    // After an exception the stream is over: whatever else the upstream sends is dropped.
    if (this.over || body.destroyed) return true;
    // Most upstream chunks hold one message: its event goes on as it is, several are joined.
    let out: Buffer | Buffer[] | undefined;
    try {
      this.reader.add(chunk);
      for (let bytes = this.reader.next(); bytes !== undefined; bytes = this.reader.next()) {
        const decoded = frameOf(this.checker!, bytes);
        let event: Buffer;
        if (decoded instanceof Buffer) {
          this.starting(EVENT_START);
          event = decoded;
        } else {
          // `instanceof` does not narrow a union holding Buffer, hence the cast.
          const frame = decoded as Exception | Other;
          if (frame.kind === 'other') continue;
          this.starting(frame);
          // Before the first chunk the answer becomes an HTTP error (streamAnswer); after it, the caller's error event.
          this.over = true;
          if (!this.started) break;
          event = Buffer.from(errorEvent(frame));
        }
        if (out === undefined) out = event;
        else if (Array.isArray(out)) out.push(event);
        else out = [out, event];
        if (this.over) break;
      }
    } catch (err) {
      body.destroy(err as Error);
      return true;
    }
    const more = out === undefined || body.push(Array.isArray(out) ? Buffer.concat(out) : out);
    if (this.over) body.push(null);
    return more;
  }

  finish(body: FramedBody): void {
    if (this.early !== undefined) {
      // The upstream ended before `start`: the end waits with its chunks.
      this.endedEarly = true;
      return;
    }
    if (this.over || body.destroyed) return;
    if (this.reader.leftover > 0) {
      body.destroy(new UnreadableAnswer(`the event stream ended inside a message (${this.reader.leftover} bytes left)`));
      return;
    }
    this.starting(OTHER);
    body.push(null);
  }

  private starting(start: Start): void {
    if (this.settle === undefined) return;
    this.settle(start);
    this.settle = undefined;
    this.started = start.kind === 'event';
  }
}

async function streamAnswer(answer: UpstreamResponse): Promise<UpstreamResponse> {
  // Every streamed call's body is made by bedrockStreamBody; any other reader of these bytes is a mistake.
  const body = answer.body as Partial<FramedBody> & FedBody;
  const framing = body.framing;
  if (!(framing instanceof EventStreamToSse)) throw new UnreadableAnswer('an event stream where none was asked for');
  // An exception before the first chunk has sent the caller nothing: it is an error answer.
  const failed = new Promise<never>((_, reject) => body.once('error', reject));
  framing.start(await headerParser(), body as FramedBody);
  const first = await Promise.race([framing.first, failed]);
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
