/**
 * An ended request as the inspector keeps it for its history: the record's facts, and each captured
 * body copied into the history's ring of bytes (`arena.ts`) with the chunk boundaries and arrival
 * times in two typed arrays (a body of one chunk, most request bodies, needs neither). A streamed
 * answer of fifty chunks is then a handful of objects instead of a hundred, and the buffers it came in
 * die with the request. Unpacked into the captured form only when someone opens it, and only while
 * the ring still holds its bytes.
 */
import type { CapturedBody, Exchange, TimedChunk, UpstreamAttempt } from '../log/exchange.js';
import type { RequestRecord } from '../log/record.js';
import type { Arena } from './arena.js';

export interface PackedBody {
  /** Where its bytes are in the arena (meaningless when `length` is 0). */
  readonly at: number;
  readonly length: number;
  /** When its only chunk passed, ms since the request arrived (a body of one chunk). */
  readonly t: number;
  /** A body of several chunks: where each ends, counted from `at`, and when each passed. */
  readonly ends: Uint32Array | undefined;
  readonly times: Float64Array | undefined;
  readonly truncated: boolean;
  readonly parsedJson: boolean;
}

/**
 * An upstream request body that is the client's with a few bytes changed (a passthrough's model
 * rename): the client's first `head` and last `tail` bytes with `mid` between them, rather than the
 * same hundred kilobytes held twice.
 */
export interface PackedDelta {
  readonly head: number;
  readonly mid: Buffer;
  readonly tail: number;
  readonly t: number;
  readonly truncated: boolean;
  readonly parsedJson: boolean;
}

export interface PackedAttempt extends Omit<UpstreamAttempt, 'body' | 'response'> {
  readonly body: PackedBody | PackedDelta;
  readonly response: PackedBody;
}

export interface PackedExchange {
  readonly bytes: number;
  readonly requestHeaders: Exchange['requestHeaders'];
  readonly request: PackedBody;
  readonly attempts: readonly PackedAttempt[];
  readonly responseStatus: number | undefined;
  readonly responseHeaders: Exchange['responseHeaders'] | undefined;
  readonly response: PackedBody;
  readonly responseIsUpstream: boolean | undefined;
}

/** A record's facts without its exchange, and the exchange packed (none when it was not captured). */
export interface PackedRecord {
  readonly facts: RequestRecord;
  readonly exchange: PackedExchange | undefined;
  /** Bytes of bodies written to the arena. */
  readonly bytes: number;
  /** Where its first body went: once the arena has written over it, the bodies are gone. */
  readonly firstAt: number;
}

/** The empty bodies, shared: most exchanges have one (a passthrough's response to the client is its upstream answer). */
const EMPTY_BODIES: readonly PackedBody[] = [false, true].flatMap((truncated) =>
  [false, true].map((parsedJson) => ({ at: 0, length: 0, t: 0, ends: undefined, times: undefined, truncated, parsedJson })),
);

const asBuffer = (data: Buffer | string) => (typeof data === 'string' ? Buffer.from(data) : data);

/** A body that does not fit the arena at all is kept as cut there. */
function packBody(body: CapturedBody, arena: Arena): PackedBody {
  const n = body.chunks.length;
  const parsedJson = body.parsedJson === true;
  if (n === 0) return EMPTY_BODIES[(body.truncated ? 2 : 0) + (parsedJson ? 1 : 0)]!;
  const first = body.chunks[0]!;
  if (n === 1) {
    const data = asBuffer(first.data);
    const at = arena.write(data);
    if (at < 0) return EMPTY_BODIES[2 + (parsedJson ? 1 : 0)]!;
    return { at, length: data.length, t: first.t, ends: undefined, times: undefined, truncated: body.truncated, parsedJson };
  }
  const ends = new Uint32Array(n);
  const times = new Float64Array(n);
  let at = -1;
  let length = 0;
  for (let i = 0; i < n; i++) {
    const c = body.chunks[i]!;
    const data = asBuffer(c.data);
    const where = arena.write(data);
    if (where < 0) return EMPTY_BODIES[2 + (parsedJson ? 1 : 0)]!;
    if (i === 0) at = where;
    length += data.length;
    ends[i] = length;
    times[i] = c.t;
  }
  return { at, length, t: first.t, ends, times, truncated: body.truncated, parsedJson };
}

/** The body's chunks as they passed; undefined once the arena has written over it. */
function unpackBody(p: PackedBody, arena: Arena): CapturedBody | undefined {
  const chunks: TimedChunk[] = [];
  const meta = { truncated: p.truncated, ...(p.parsedJson ? { parsedJson: true as const } : {}) };
  if (p.length === 0) return { chunks, ...meta };
  const data = arena.read(p.at, p.length);
  if (!data) return undefined;
  if (p.ends && p.times) {
    let from = 0;
    for (let i = 0; i < p.ends.length; i++) {
      const to = p.ends[i]!;
      chunks.push({ t: p.times[i]!, data: data.subarray(from, to) });
      from = to;
    }
  } else {
    chunks.push({ t: p.t, data });
  }
  return { chunks, ...meta };
}

/** Below this a body is kept whole: the comparison would cost more than it saves. */
const DELTA_MIN_BYTES = 4096;
/** More changed bytes than this: kept whole. */
const DELTA_MAX_MID = 1024;
const BLOCK = 4096;

/** How many bytes `a` and `b` share at their start, compared a block at a time. */
function sharedHead(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i + BLOCK <= n && a.compare(b, i, i + BLOCK, i, i + BLOCK) === 0) i += BLOCK;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** How many bytes `a` and `b` share at their end, not counting the first `head`. */
function sharedTail(a: Buffer, b: Buffer, head: number): number {
  const n = Math.min(a.length, b.length) - head;
  let k = 0;
  while (k + BLOCK <= n && a.compare(b, b.length - k - BLOCK, b.length - k, a.length - k - BLOCK, a.length - k) === 0) k += BLOCK;
  while (k < n && a[a.length - 1 - k] === b[b.length - 1 - k]) k++;
  return k;
}

/** The upstream request body as a delta from the client's when they differ in a few bytes only. */
function packAttemptBody(body: CapturedBody, client: CapturedBody, arena: Arena): PackedBody | PackedDelta {
  const first = body.chunks[0];
  const clientFirst = client.chunks[0];
  if (body.chunks.length !== 1 || client.chunks.length !== 1 || first === undefined || clientFirst === undefined) return packBody(body, arena);
  if (typeof first.data === 'string' || typeof clientFirst.data === 'string') return packBody(body, arena);
  const a = clientFirst.data;
  const b = first.data;
  if (b.length < DELTA_MIN_BYTES || Math.abs(a.length - b.length) > DELTA_MAX_MID) return packBody(body, arena);
  const head = sharedHead(a, b);
  const tail = sharedTail(a, b, head);
  if (b.length - head - tail > DELTA_MAX_MID) return packBody(body, arena);
  return { head, mid: Buffer.from(b.subarray(head, b.length - tail)), tail, t: first.t, truncated: body.truncated, parsedJson: body.parsedJson === true };
}

function unpackAttemptBody(p: PackedBody | PackedDelta, client: CapturedBody): CapturedBody | undefined {
  if (!('head' in p)) return undefined;
  const a = client.chunks[0]?.data;
  if (a === undefined || typeof a === 'string') return undefined;
  const data = Buffer.concat([a.subarray(0, p.head), p.mid, a.subarray(a.length - p.tail)]);
  return { chunks: [{ t: p.t, data }], truncated: p.truncated, ...(p.parsedJson ? { parsedJson: true as const } : {}) };
}

/** `bodies` false: the facts alone, whatever was captured. */
export function packRecord(record: RequestRecord, arena: Arena, bodies = true): PackedRecord {
  // The copy leaves the captured exchange, with its chunk lists, to be collected with the request.
  // Nor is its trace kept: the spans have ended with the request. A record with neither (most, with
  // history's rate) is kept as it is: nothing writes to it once its request has ended.
  const facts: RequestRecord = record.exchange === undefined && record.trace === undefined ? record : { ...record, exchange: undefined, trace: undefined };
  const x = record.exchange;
  if (!x || !bodies) return { facts, exchange: undefined, bytes: 0, firstAt: 0 };
  const request = packBody(x.request, arena);
  let bytes = request.length;
  const attempts = x.attempts.map((a): PackedAttempt => {
    const body = packAttemptBody(a.body, x.request, arena);
    const response = packBody(a.response, arena);
    bytes += ('head' in body ? 0 : body.length) + response.length;
    return { ...a, body, response };
  });
  const response = packBody(x.response, arena);
  bytes += response.length;
  const exchange: PackedExchange = {
    bytes,
    requestHeaders: x.requestHeaders,
    request,
    attempts,
    responseStatus: x.responseStatus,
    responseHeaders: x.responseHeaders,
    response,
    responseIsUpstream: x.responseIsUpstream,
  };
  return { facts, exchange, bytes, firstAt: firstWritten(exchange) };
}

/** The position of the first body written (the request's, unless it was empty), in the order packRecord wrote them. */
function firstWritten(x: PackedExchange): number {
  if (x.request.length > 0) return x.request.at;
  // Runs once per request: plain loops, no arrays of the bodies built to search them.
  for (const a of x.attempts) {
    if (!('head' in a.body) && a.body.length > 0) return a.body.at;
    if (a.response.length > 0) return a.response.at;
  }
  return x.response.length > 0 ? x.response.at : Number.POSITIVE_INFINITY;
}

/** Whether the arena still holds the record's bodies. */
export const bodiesHeld = (p: PackedRecord, arena: Arena): boolean => p.exchange === undefined || !Number.isFinite(p.firstAt) || arena.holds(p.firstAt);

/** The record as it was when the request ended (without its bodies once the arena has written over them). */
export function unpackRecord(p: PackedRecord, arena: Arena): RequestRecord {
  const x = p.exchange;
  if (!x || !bodiesHeld(p, arena)) return p.facts;
  const request = unpackBody(x.request, arena);
  const response = unpackBody(x.response, arena);
  if (!request || !response) return p.facts;
  const attempts: UpstreamAttempt[] = [];
  for (const a of x.attempts) {
    const body = 'head' in a.body ? unpackAttemptBody(a.body, request) : unpackBody(a.body, arena);
    const answer = unpackBody(a.response, arena);
    if (!body || !answer) return p.facts;
    attempts.push({ ...a, body, response: answer });
  }
  const exchange: Exchange = {
    limit: x.bytes,
    bytes: x.bytes,
    requestHeaders: x.requestHeaders,
    request,
    attempts,
    ...(x.responseStatus !== undefined ? { responseStatus: x.responseStatus } : {}),
    ...(x.responseHeaders !== undefined ? { responseHeaders: x.responseHeaders } : {}),
    response,
    ...(x.responseIsUpstream ? { responseIsUpstream: true } : {}),
  };
  return { ...p.facts, exchange };
}

/** The body's bytes, for the search; undefined once written over. */
export function packedBytes(p: PackedBody | PackedDelta, arena: Arena): Buffer | undefined {
  if ('head' in p) return p.mid;
  return p.length === 0 ? undefined : arena.read(p.at, p.length);
}
