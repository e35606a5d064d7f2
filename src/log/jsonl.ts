/**
 * The `--log-file` line of a request: `JSON.stringify(exchangeJson(record))`,
 * written without building that object. Decoding a body only to encode it again
 * would dominate the cost of a line (a body appears twice: as the client's request
 * and as the upstream's), so a captured body that already is one line of valid JSON
 * goes into the line as its own bytes, and a stream's events keep their JSON data as written. Parsing the
 * line gives exactly what parsing the `exchangeJson` form gives; only the
 * spelling inside such bodies may differ (the client's spaces, `\u00e9` kept as
 * sent). Anything else (text, a truncated capture, invalid UTF-8, JSON with
 * line breaks or tabs) is encoded by `bodyJson`. Figures: docs/performance.md, "Logging".
 *
 * This mirrors the shape of `exchangeJson` and `bodyJson` (exchange-json.ts);
 * jsonl.test.ts checks that the two agree, so a change there must be made here too.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { MAX_JSON_DEPTH, mayNestDeeperThan, nestedDeeperThan } from '../protocols/json-outline.js';
import { createSseDecoder, type SseEvent } from '../sse/parse.js';
import type { CapturedBody, Exchange, UpstreamAttempt } from './exchange.js';
import { bodyJson, recordFacts } from './exchange-json.js';
import type { RequestRecord } from './record.js';
import { isoTime } from './iso-time.js';
import { jsonQuoted } from './json-quoted.js';
import { redactHeaders } from './redact.js';

/** A line's pieces in order: text, and bodies embedded as their bytes. The last piece ends with the newline. */
export type LineParts = (string | Buffer)[];

/**
 * One `--log-file` line (with its newline) for a request. `bodies: false` (--no-log-bodies): the
 * facts only, even when the exchange was captured (for --verbose or the inspector).
 */
export function exchangeLine(r: RequestRecord, bodies = true): LineParts {
  // The facts in one JSON.stringify of one object: it allocates less than writing them field by field.
  const facts = JSON.stringify(recordFacts(r, isoTime(r.startedAt)));
  if (!r.exchange || !bodies) return [`${facts}\n`];
  const line = new Line();
  line.text = facts.slice(0, -1);
  exchangePart(line, r.exchange);
  line.text += '}\n';
  return line.end();
}

function exchangePart(line: Line, x: Exchange): void {
  line.text += `,"request":{"headers":${headersJson(x.requestHeaders)},"body":`;
  body(line, x.request, contentType(x.requestHeaders['content-type']));
  line.text += '},"attempts":[';
  x.attempts.forEach((a, i) => {
    if (i > 0) line.text += ',';
    attempt(line, a);
  });
  line.text += '],"response":{';
  if (x.responseStatus !== undefined) line.text += `"status":${JSON.stringify(x.responseStatus)},`;
  if (x.responseHeaders) line.text += `"headers":${headersJson(x.responseHeaders)},`;
  line.text += '"body":';
  const last = x.attempts[x.attempts.length - 1];
  body(line, x.responseIsUpstream && last ? last.response : x.response, contentType(x.responseHeaders?.['content-type']));
  line.text += '}';
}

function attempt(line: Line, a: UpstreamAttempt): void {
  line.text += '{';
  line.first = true;
  line.field('model', a.model);
  line.field('provider', a.provider);
  line.field('upstreamModel', a.upstreamModel);
  line.field('protocol', a.protocol);
  line.text += `,"t":${roundedJson(a.t)}`;
  if (a.durationMs !== undefined) line.text += `,"durationMs":${roundedJson(a.durationMs)}`;
  if (a.status !== undefined) line.field('status', a.status);
  if (a.error !== undefined) line.field('error', a.error);
  line.text += `,"headers":${headersJson(a.headers)},"body":`;
  body(line, a.body, 'application/json');
  if (a.responseHeaders) line.text += `,"responseHeaders":${headersJson(a.responseHeaders)}`;
  line.text += ',"response":';
  body(line, a.response, contentType(a.responseHeaders?.['content-type']));
  line.text += '}';
}

/** A body's `bodyJson` form as JSON text, with JSON content and event data embedded as written when they can be. */
function body(line: Line, b: CapturedBody, type: string): void {
  // A relayed answer is both the attempt's response and the client's: rendered once.
  const memo = line.rendered;
  if (memo?.body === b && memo.type === type) {
    line.put(memo.pieces);
    return;
  }
  const pieces = render(b, type);
  line.rendered = { body: b, type, pieces };
  line.put(pieces);
}

function render(b: CapturedBody, type: string): readonly (string | Buffer)[] {
  if (b.truncated || b.chunks.length === 0) return [JSON.stringify(bodyJson(b, type))];
  if (type.includes('text/event-stream')) return [`{"bytes":${capturedBytes(b)},"events":${eventsText(b)}}`];
  const bytes = joined(b);
  if (embeddable(b, bytes)) return [`{"bytes":${bytes.length},"json":`, bytes, '}'];
  return [JSON.stringify(bodyJson(b, type))];
}

/**
 * Whether a body can go into the line as its bytes: one JSON text (what JSON.parse accepts) in
 * valid UTF-8, on one line, and not nested so deep that `bodyJson` keeps it as text. Bytes the
 * gateway parsed already (within that depth) need only the line-break check: whitespace between
 * tokens may be a CR or LF, while inside strings JSON allows no raw control character.
 */
function embeddable(b: CapturedBody, bytes: Buffer): boolean {
  if (!isUtf8(bytes) || bytes.indexOf(0x0a) !== -1 || bytes.indexOf(0x0d) !== -1) return false;
  if (b.parsedJson) return true;
  // No tab either (the only other control byte valid JSON may hold), and `bodyJson`'s depth check.
  if (bytes.indexOf(0x09) !== -1) return false;
  if (mayNestDeeperThan(bytes.length, MAX_JSON_DEPTH) && nestedDeeperThan(bytes, MAX_JSON_DEPTH)) return false;
  try {
    JSON.parse(bytes.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/** Text gathered in one string, with buffers placed between. */
class Line {
  text = '';
  /** No field written yet in the object being written (facts follow `time`, so not there). */
  first = false;
  /** The last body written, for `body`. */
  rendered: { body: CapturedBody; type: string; pieces: readonly (string | Buffer)[] } | undefined;
  private readonly parts: LineParts = [];

  /** `"key":value` as `JSON.stringify` writes a property, or nothing for what it leaves out (undefined). */
  field(key: string, value: unknown): void {
    // An attempt's optional fields: what is not there is skipped without a call into JSON.stringify.
    if (value === undefined) return;
    const json = typeof value === 'number' ? numberJson(value) : typeof value === 'boolean' ? String(value) : JSON.stringify(value);
    if (json === undefined) return;
    this.text += `${this.first ? '' : ','}${jsonQuoted(key)}:${json}`;
    this.first = false;
  }

  put(pieces: readonly (string | Buffer)[]): void {
    for (const p of pieces) {
      if (typeof p === 'string') {
        this.text += p;
      } else {
        this.parts.push(this.text, p);
        this.text = '';
      }
    }
  }

  end(): LineParts {
    this.parts.push(this.text);
    return this.parts;
  }
}

const numberJson = (n: number) => (Number.isFinite(n) ? String(n) : 'null');


function headersJson(headers: IncomingHttpHeaders | OutgoingHttpHeaders): string {
  return JSON.stringify(redactHeaders(headers));
}

function contentType(value: unknown): string {
  return typeof value === 'string' ? value : Array.isArray(value) ? String(value[0] ?? '') : '';
}

/**
 * `JSON.stringify(Math.round(ms * 100) / 100)`, the way exchange-json.ts rounds times, without
 * converting a double to text (slow; a stream has a time per event): for such values the shortest
 * text that reads back as the same double is the decimal with two places, trailing zeros dropped.
 */
export function roundedJson(ms: number): string {
  const hundredths = Math.round(ms * 100);
  // Past 2^53 / 100 doubles are too far apart for that; NaN and infinities print as null.
  if (!(Math.abs(hundredths) < 1e13)) return numberJson(hundredths / 100);
  const abs = Math.abs(hundredths);
  const whole = Math.floor(abs / 100);
  const cents = abs - whole * 100;
  const sign = hundredths < 0 ? '-' : '';
  if (cents === 0) return `${sign}${whole}`;
  if (cents % 10 === 0) return `${sign}${whole}.${cents / 10}`;
  return `${sign}${whole}.${cents < 10 ? '0' : ''}${cents}`;
}

function capturedBytes(body: CapturedBody): number {
  let bytes = 0;
  for (const c of body.chunks) bytes += typeof c.data === 'string' ? Buffer.byteLength(c.data) : c.data.length;
  return bytes;
}

function joined(body: CapturedBody): Buffer {
  const { chunks } = body;
  if (chunks.length === 1 && typeof chunks[0]!.data !== 'string') return chunks[0]!.data;
  return Buffer.concat(chunks.map((c) => (typeof c.data === 'string' ? Buffer.from(c.data) : c.data)));
}

/** A stream's `events` as JSON text: the same decoder and times as `bodyJson`, data embedded when it is single-line JSON. */
function eventsText(body: CapturedBody): string {
  const decoder = createSseDecoder();
  let out = '';
  const add = (t: number, events: readonly SseEvent[]) => {
    for (const e of events) {
      const event = e.event !== undefined ? `,"event":${JSON.stringify(e.event)}` : '';
      out += `${out === '' ? '' : ','}{"t":${roundedJson(t)}${event},"data":${dataText(e.data)}}`;
    }
  };
  for (const c of body.chunks) add(c.t, decoder.push(c.data));
  add(body.chunks[body.chunks.length - 1]!.t, decoder.end());
  return `[${out}]`;
}

/** An event's data as `bodyJson` reads it, as JSON text. */
function dataText(data: string): string {
  const c = data.charCodeAt(0);
  // Only objects and arrays are parsed; `[DONE]` and plain text stay strings.
  if (c !== 123 /* { */ && c !== 91 /* [ */) return JSON.stringify(data);
  try {
    const value: unknown = JSON.parse(data);
    // As written when it is one line and well-formed UTF-16 (a lone surrogate would not survive UTF-8).
    return isWellFormed(data) && !CONTROL.test(data) ? data : JSON.stringify(value);
  } catch {
    return JSON.stringify(data);
  }
}

const CONTROL = /[\u0000-\u001f]/;

/** ES2024's String.prototype.isWellFormed, in Node 20 but not yet in the ES2023 lib this project compiles against. */
const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();
