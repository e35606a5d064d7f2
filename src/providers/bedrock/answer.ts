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
import { UnreadableAnswer, messages, stringHeader } from './event-stream.js';

type Headers = UpstreamResponse['headers'];

export async function bedrockAnswer(answer: UpstreamResponse, call: UrlCall): Promise<UpstreamResponse> {
  if (call.protocol !== 'messages') return answer;
  if (answer.status >= 400) return anthropicErrorAnswer(answer);
  if (call.operation === 'count_tokens') return countAnswer(answer);
  const type = answer.headers['content-type'];
  if (typeof type === 'string' && type.startsWith('application/vnd.amazon.eventstream')) return streamAnswer(answer);
  return answer;
}

/** What one event-stream message carries. */
type Frame =
  | { readonly kind: 'event'; readonly type: string; readonly data: string }
  | { readonly kind: 'exception'; readonly name: string; readonly message: string }
  | { readonly kind: 'other' };

function frameOf(message: Message): Frame {
  const messageType = stringHeader(message, ':message-type');
  if (messageType === 'exception') {
    const name = stringHeader(message, ':exception-type') ?? 'unknownException';
    return { kind: 'exception', name, message: parseErrorBody(Buffer.from(message.body).toString('utf8')).message ?? name };
  }
  if (messageType === 'error') {
    const name = stringHeader(message, ':error-code') ?? 'unknownError';
    return { kind: 'exception', name, message: stringHeader(message, ':error-message') ?? name };
  }
  if (messageType !== 'event' || stringHeader(message, ':event-type') !== 'chunk') return { kind: 'other' };
  const { bytes } = parseJson(Buffer.from(message.body).toString('utf8')) as { bytes?: unknown };
  if (typeof bytes !== 'string') throw new UnreadableAnswer('a Bedrock chunk without its bytes');
  const data = Buffer.from(bytes, 'base64').toString('utf8');
  return { kind: 'event', type: eventType(data), data };
}

// Anthropic's events start with their type; reading it from the front spares parsing every event.
const LEADING_TYPE = /^\{"type":"([a-z_]+)"/;

function eventType(data: string): string {
  const leading = LEADING_TYPE.exec(data);
  if (leading) return leading[1]!;
  const { type } = parseJson(data) as { type?: unknown };
  if (typeof type !== 'string') throw new UnreadableAnswer('a Bedrock chunk whose event has no type');
  return type;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UnreadableAnswer('a Bedrock chunk that is not JSON');
  }
}

const sse = (type: string, data: string): Buffer => Buffer.from(`event: ${type}\ndata: ${data}\n\n`);

function errorEvent(frame: { readonly name: string; readonly message: string }): Buffer {
  const error = { type: streamExceptionMeaning(frame.name).anthropicType, message: frame.message };
  return sse('error', JSON.stringify({ type: 'error', error }));
}

/** Headers the gateway passes on, without the ones that described Bedrock's bytes. */
function keptHeaders(headers: Headers, contentType: string): Record<string, string | string[] | undefined> {
  const { 'content-type': _type, 'content-length': _length, ...rest } = headers;
  return { ...rest, 'content-type': contentType };
}

async function streamAnswer(answer: UpstreamResponse): Promise<UpstreamResponse> {
  const source = messages(answer.body);
  // Read up to the first chunk: an exception before it has sent the caller nothing, and is an error answer.
  let first: Frame;
  for (;;) {
    const next = await source.next();
    if (next.done) {
      first = { kind: 'other' };
      break;
    }
    first = frameOf(next.value);
    if (first.kind !== 'other') break;
  }
  if (first.kind === 'exception') {
    await source.return(undefined);
    const meaning = streamExceptionMeaning(first.name);
    const body = anthropicErrorBody(meaning.anthropicType, first.message);
    return wholeAnswer(meaning.status, { ...keptHeaders(answer.headers, 'application/json'), 'x-amzn-errortype': capitalised(first.name) }, body);
  }
  const start = first;
  async function* events(): AsyncGenerator<Buffer> {
    if (start.kind === 'event') yield sse(start.type, start.data);
    for await (const message of source) {
      const frame = frameOf(message);
      if (frame.kind === 'event') yield sse(frame.type, frame.data);
      else if (frame.kind === 'exception') {
        yield errorEvent(frame);
        return;
      }
    }
  }
  const body = Readable.from(events(), { objectMode: false });
  // A body destroyed before it was read never starts the generator, which would close the source.
  body.once('close', () => answer.body.destroy());
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
