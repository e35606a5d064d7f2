/**
 * An ended request as the inspector keeps it for its history: the record's facts, and each captured
 * body copied into the history's ring of bytes (`arena.ts`) with the chunk boundaries and arrival
 * times in two typed arrays (a body of one chunk, most request bodies, needs neither). A streamed
 * answer of fifty chunks is then a handful of objects instead of a hundred, and the buffers it came in
 * die with the request. The exchange's headers (the client's, each attempt's sent and answered, the
 * response's) go to the ring too, as one JSON text: held as objects, they were a few dozen strings per
 * kept request, each copied by every young collection until promoted, which cost the collector more
 * than writing them out. Unpacked into the captured form only when someone opens it, and only while
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

export interface PackedAttempt extends Omit<UpstreamAttempt, 'body' | 'response' | 'headers' | 'responseHeaders'> {
  readonly body: PackedBody | PackedDelta;
  readonly response: PackedBody;
}

export interface PackedExchange {
  readonly bytes: number;
  /** Where the headers' JSON is in the arena (`PackedHeaders`), and its length. */
  readonly headersAt: number;
  readonly headersLength: number;
  readonly request: PackedBody;
  readonly attempts: readonly PackedAttempt[];
  readonly responseStatus: number | undefined;
  readonly response: PackedBody;
  readonly responseIsUpstream: boolean | undefined;
}

/** A record's facts without its exchange, and the exchange packed (none when it was not captured). */
export interface PackedRecord {
  readonly facts: RequestRecord;
  readonly exchange: PackedExchange | undefined;
  /** Bytes of bodies written to the arena. */
  readonly bytes: number;
  /** Where its first bytes (the headers) went: once the arena has written over them, the bodies are gone. */
  readonly firstAt: number;
}

/** The headers of an exchange in one array: the client's, the response's (or null), then each attempt's sent and answered (or null). */
type PackedHeaders = unknown[];

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

export function packRecord(record: RequestRecord, arena: Arena): PackedRecord {
  // The copy leaves the captured exchange, with its chunk lists, to be collected with the request.
  // Nor is its trace kept: the spans have ended with the request.
  const facts: RequestRecord = { ...record, exchange: undefined, trace: undefined };
  const x = record.exchange;
  if (!x) return { facts, exchange: undefined, bytes: 0, firstAt: 0 };
  const heads: PackedHeaders = [x.requestHeaders, x.responseHeaders ?? null];
  for (const a of x.attempts) heads.push(a.headers, a.responseHeaders ?? null);
  const headerBytes = Buffer.from(JSON.stringify(heads));
  // Written first, so that its place says whether the bodies after it are still there.
  const headersAt = arena.write(headerBytes);
  if (headersAt < 0) return { facts, exchange: undefined, bytes: 0, firstAt: 0 };
  const request = packBody(x.request, arena);
  let bytes = request.length;
  const attempts = x.attempts.map((a): PackedAttempt => {
    const body = packAttemptBody(a.body, x.request, arena);
    const response = packBody(a.response, arena);
    bytes += ('head' in body ? 0 : body.length) + response.length;
    const { headers: _sent, responseHeaders: _answered, ...rest } = a;
    return { ...rest, body, response };
  });
  const response = packBody(x.response, arena);
  bytes += response.length;
  const exchange: PackedExchange = {
    bytes,
    headersAt,
    headersLength: headerBytes.length,
    request,
    attempts,
    responseStatus: x.responseStatus,
    response,
    responseIsUpstream: x.responseIsUpstream,
  };
  return { facts, exchange, bytes, firstAt: headersAt };
}

/** Whether the arena still holds the record's bodies. */
export const bodiesHeld = (p: PackedRecord, arena: Arena): boolean => p.exchange === undefined || arena.holds(p.firstAt);

/** The record as it was when the request ended (without its bodies once the arena has written over them). */
export function unpackRecord(p: PackedRecord, arena: Arena): RequestRecord {
  const x = p.exchange;
  if (!x || !bodiesHeld(p, arena)) return p.facts;
  const headerBytes = arena.read(x.headersAt, x.headersLength);
  const request = unpackBody(x.request, arena);
  const response = unpackBody(x.response, arena);
  if (!headerBytes || !request || !response) return p.facts;
  const heads = JSON.parse(headerBytes.toString('utf8')) as PackedHeaders;
  const attempts: UpstreamAttempt[] = [];
  for (const [i, a] of x.attempts.entries()) {
    const body = 'head' in a.body ? unpackAttemptBody(a.body, request) : unpackBody(a.body, arena);
    const answer = unpackBody(a.response, arena);
    if (!body || !answer) return p.facts;
    const sent = (heads[2 + 2 * i] ?? {}) as UpstreamAttempt['headers'];
    const answered = (heads[3 + 2 * i] ?? undefined) as UpstreamAttempt['responseHeaders'];
    attempts.push({ ...a, headers: sent, ...(answered !== undefined ? { responseHeaders: answered } : {}), body, response: answer });
  }
  const responseHeaders = (heads[1] ?? undefined) as Exchange['responseHeaders'];
  const exchange: Exchange = {
    limit: x.bytes,
    bytes: x.bytes,
    requestHeaders: (heads[0] ?? {}) as Exchange['requestHeaders'],
    request,
    attempts,
    ...(x.responseStatus !== undefined ? { responseStatus: x.responseStatus } : {}),
    ...(responseHeaders !== undefined ? { responseHeaders } : {}),
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
