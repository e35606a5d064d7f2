/**
 * An ended request as the inspector keeps it for its history: the record's facts, and each captured
 * body as one buffer of the bytes that passed with the chunk boundaries and arrival times in two typed
 * arrays. A streamed answer of fifty chunks is then three objects instead of a hundred, which is what
 * keeps a few hundred exchanges cheap for the garbage collector to hold (docs/performance.md, "The
 * inspector"). Unpacked into the captured form only when someone opens it.
 */
import type { CapturedBody, Exchange, TimedChunk, UpstreamAttempt } from '../log/exchange.js';
import type { RequestRecord } from '../log/record.js';

export interface PackedBody {
  /** The body's bytes, chunks one after the other. */
  readonly data: Buffer;
  /** When its only chunk passed, ms since the request arrived (a body of one chunk, most request bodies). */
  readonly t: number;
  /** A body of several chunks: where each ends in `data`, and when each passed. */
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
  /** Bytes of bodies held. */
  readonly bytes: number;
}

const EMPTY = Buffer.alloc(0);
/** The empty bodies, shared: most exchanges have one (a passthrough's response to the client is its upstream answer). */
const EMPTY_BODIES: readonly PackedBody[] = [false, true].flatMap((truncated) =>
  [false, true].map((parsedJson) => ({ data: EMPTY, t: 0, ends: undefined, times: undefined, truncated, parsedJson })),
);

/**
 * A buffer that owns all of its memory is kept as it is; a view into a larger one (a slice of Node's
 * pool, or of a read buffer) is copied, so a small body does not pin the larger buffer it sits in.
 */
const owned = (b: Buffer) => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : Buffer.from(b));

export function packBody(body: CapturedBody): PackedBody {
  const n = body.chunks.length;
  const parsedJson = body.parsedJson === true;
  if (n === 0) return EMPTY_BODIES[(body.truncated ? 2 : 0) + (parsedJson ? 1 : 0)]!;
  const first = body.chunks[0]!;
  if (n === 1) {
    const data = typeof first.data === 'string' ? Buffer.from(first.data) : owned(first.data);
    return { data, t: first.t, ends: undefined, times: undefined, truncated: body.truncated, parsedJson };
  }
  const ends = new Uint32Array(n);
  const times = new Float64Array(n);
  const parts: Buffer[] = new Array<Buffer>(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const c = body.chunks[i]!;
    const b = typeof c.data === 'string' ? Buffer.from(c.data) : c.data;
    parts[i] = b;
    at += b.length;
    ends[i] = at;
    times[i] = c.t;
  }
  return { data: Buffer.concat(parts, at), t: first.t, ends, times, truncated: body.truncated, parsedJson };
}

export function unpackBody(p: PackedBody): CapturedBody {
  const chunks: TimedChunk[] = [];
  if (p.ends && p.times) {
    let from = 0;
    for (let i = 0; i < p.ends.length; i++) {
      const to = p.ends[i]!;
      chunks.push({ t: p.times[i]!, data: p.data.subarray(from, to) });
      from = to;
    }
  } else if (p.data.length > 0) {
    chunks.push({ t: p.t, data: p.data });
  }
  return { chunks, truncated: p.truncated, ...(p.parsedJson ? { parsedJson: true as const } : {}) };
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
function packAttemptBody(body: CapturedBody, client: PackedBody): PackedBody | PackedDelta {
  const first = body.chunks[0];
  if (body.chunks.length !== 1 || first === undefined || typeof first.data === 'string' || client.ends !== undefined) return packBody(body);
  const a = client.data;
  const b = first.data;
  if (b.length < DELTA_MIN_BYTES || Math.abs(a.length - b.length) > DELTA_MAX_MID) return packBody(body);
  const head = sharedHead(a, b);
  const tail = sharedTail(a, b, head);
  if (b.length - head - tail > DELTA_MAX_MID) return packBody(body);
  return { head, mid: Buffer.from(b.subarray(head, b.length - tail)), tail, t: first.t, truncated: body.truncated, parsedJson: body.parsedJson === true };
}

function unpackAttemptBody(p: PackedBody | PackedDelta, client: PackedBody): CapturedBody {
  if (!('head' in p)) return unpackBody(p);
  const a = client.data;
  const data = Buffer.concat([a.subarray(0, p.head), p.mid, a.subarray(a.length - p.tail)]);
  return { chunks: [{ t: p.t, data }], truncated: p.truncated, ...(p.parsedJson ? { parsedJson: true as const } : {}) };
}

const packedBytes = (p: PackedBody | PackedDelta) => ('head' in p ? p.mid.length : p.data.length);

export function packRecord(record: RequestRecord): PackedRecord {
  // The copy leaves the captured exchange, with its chunk lists, to be collected with the request.
  const facts: RequestRecord = { ...record, exchange: undefined };
  const x = record.exchange;
  if (!x) return { facts, exchange: undefined, bytes: 0 };
  const request = packBody(x.request);
  let bytes = request.data.length;
  const attempts = x.attempts.map((a): PackedAttempt => {
    const body = packAttemptBody(a.body, request);
    const response = packBody(a.response);
    bytes += packedBytes(body) + response.data.length;
    return { ...a, body, response };
  });
  const response = packBody(x.response);
  bytes += response.data.length;
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
  return { facts, exchange, bytes };
}

/** The record as it was when the request ended, for the summary and the JSON form. */
export function unpackRecord(p: PackedRecord): RequestRecord {
  const x = p.exchange;
  if (!x) return p.facts;
  const exchange: Exchange = {
    limit: x.bytes,
    bytes: x.bytes,
    requestHeaders: x.requestHeaders,
    request: unpackBody(x.request),
    attempts: x.attempts.map((a) => ({ ...a, body: unpackAttemptBody(a.body, x.request), response: unpackBody(a.response) })),
    ...(x.responseStatus !== undefined ? { responseStatus: x.responseStatus } : {}),
    ...(x.responseHeaders !== undefined ? { responseHeaders: x.responseHeaders } : {}),
    response: unpackBody(x.response),
    ...(x.responseIsUpstream ? { responseIsUpstream: true } : {}),
  };
  return { ...p.facts, exchange };
}

/** The same facts without the bodies: what stays of an old exchange once memory is needed for newer ones. */
export function withoutBodies(p: PackedRecord): PackedRecord {
  return { facts: p.facts, exchange: undefined, bytes: 0 };
}
