/**
 * Reads a request body within its byte budgets: the server's `maxBodyBytes` per request, and the
 * gateway's `maxBufferedBytes` across requests. A declared length over the limit is refused
 * before reading a byte; a chunked body is refused as soon as it passes the limit. Either way the
 * connection is closed after the answer, so the rest of an oversized upload is never buffered.
 * Past the gateway's budget a request is answered 503 with retry-after at once, so a flood
 * degrades into refusals instead of memory.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { ServerConfig } from '../config/types.js';
import { GatewayError, invalidRequest, overloaded } from '../errors.js';
import type { ByteBudget, Cleanup, ServerLoad } from './context.js';
import { decodeUtf8 } from '../protocols/decode-utf8.js';
import { MAX_JSON_DEPTH, mayNestDeeperThan, outlineJson, repeatedRootKey } from '../protocols/json-outline.js';

function tooLarge(limit: number): GatewayError {
  return new GatewayError('request_too_large', `Request body is larger than the gateway's limit of ${limit} bytes.`, {
    headers: { connection: 'close' },
  });
}

/** A class rather than closures over `held`: every model request makes one (docs/performance.md, "A small request's allocations"). */
class Budget implements ByteBudget {
  private held = 0;

  constructor(
    private readonly load: ServerLoad,
    private readonly server: ServerConfig,
  ) {}

  // The rest of the upload is not read, so the connection cannot be reused.
  take(bytes: number): void {
    this.add(bytes, CLOSE);
  }

  holdAnswer(bytes: number): void {
    this.add(bytes, undefined);
  }

  giveBack(): void {
    this.load.bufferedBytes -= this.held;
    this.held = 0;
  }

  private add(bytes: number, extra: Record<string, string> | undefined): void {
    const { load, server } = this;
    if (load.bufferedBytes + bytes > server.maxBufferedBytes) {
      throw overloaded(`The gateway is holding its maximum of ${server.maxBufferedBytes} bytes of request and answer bodies; retry shortly.`, {
        ...(extra ? { headers: { ...extra } } : {}),
      });
    }
    load.bufferedBytes += bytes;
    this.held += bytes;
  }
}
const CLOSE: Record<string, string> = { connection: 'close' };

export function byteBudget(load: ServerLoad, server: ServerConfig): ByteBudget {
  return new Budget(load, server);
}

/** The cleanup of a request that took a share of the buffered bytes: gives it back. */
export const giveBackBudget: Cleanup = (ctx) => {
  ctx.budget?.giveBack();
};

/** What Node takes for an `Expect: 100-continue` request (it then waits for the handler's writeContinue). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;
export function expectsContinue(req: IncomingMessage): boolean {
  const expect = req.headers.expect;
  return expect !== undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && CONTINUE.test(expect);
}

/** @param budget the gateway-wide allowance for bodies held in memory; throws 503 when it is spent. */
export function readBody(req: IncomingMessage, limit: number, budget?: ByteBudget): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));

  return new Promise((resolve, reject) => {
    const read = new BodyRead(declared, limit, budget);
    read.resolve = resolve;
    read.reject = reject;
    (req as Reading)[READ] = read;
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * A body being read. Its listeners are functions made once that find it on the request, rather than
 * four closures per request (docs/performance.md, "A small request's allocations").
 */
class BodyRead {
  readonly chunks: Buffer[] = [];
  size = 0;
  done = false;
  resolve: (body: Buffer) => void = ignore;
  reject: (err: unknown) => void = ignore;

  constructor(
    readonly declared: number,
    readonly limit: number,
    readonly budget: ByteBudget | undefined,
  ) {}
}
const ignore = (): void => {};
const READ = Symbol('body read');
type Reading = IncomingMessage & { [READ]: BodyRead };

function onData(this: Reading, chunk: Buffer): void {
  const read = this[READ];
  read.size += chunk.length;
  if (read.size > read.limit) {
    refuse(this, tooLarge(read.limit));
    return;
  }
  try {
    read.budget?.take(chunk.length);
  } catch (err) {
    refuse(this, err);
    return;
  }
  read.chunks.push(chunk);
  // The last byte the client declared is here: no need to wait for 'end', which comes a turn of
  // the queue later, delaying the upstream call.
  // Paused, the request ends only when resumed: its 'end', and Node's teardown of the stream after
  // it (destroy, 'close'), would otherwise run before the upstream call is written, which undici
  // puts off to the check phase on a reused connection, and delay the first byte.
  // The handler resumes it once the response has closed.
  if (read.size === read.declared) {
    this.pause();
    onEnd.call(this);
  }
}

// At 'end' (or at the declared length) the request has no more data to emit; the listeners go with
// it, without three removals per request.
function onEnd(this: Reading): void {
  const read = this[READ];
  if (read.done) return;
  read.done = true;
  const { chunks } = read;
  read.resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, read.size));
}

function onError(this: Reading, err: Error): void {
  stopReading(this);
  this[READ].reject(err);
}

/** Past a limit: the rest of the upload is left unread. */
function refuse(req: Reading, err: unknown): void {
  stopReading(req);
  req.pause();
  req[READ].reject(err);
}

function stopReading(req: Reading): void {
  req.off('data', onData);
  req.off('end', onEnd);
  req.off('error', onError);
}

/** A request body parsed, and where its `model` value sits when the depth check found that on the way. */
export interface ParsedBody {
  readonly json: unknown;
  /** The root object's `model` string value in the bytes, as [start, end); undefined when not found or the root is not an object. */
  readonly modelAt: [number, number] | undefined;
}

export function parseJsonBody(raw: Buffer): unknown {
  return parseRequestBody(raw).json;
}

export function parseRequestBody(raw: Buffer): ParsedBody {
  if (raw.length === 0) throw invalidRequest('The request body is empty; send a JSON object.');
  // Decoding would turn bad bytes into U+FFFD silently, while passthrough forwards the bytes as sent:
  // the gateway and the provider would read two different requests.
  if (!isUtf8(raw)) throw invalidRequest('The request body is not valid UTF-8 (JSON must be UTF-8).');
  let json: unknown;
  try {
    json = JSON.parse(decodeUtf8(raw)) as unknown;
  } catch (err) {
    throw invalidRequest(`The request body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { json, modelAt: undefined };
  // Text this short cannot nest too deep, but its keys are counted all the same.
  const outline = outlineJson(raw, mayNestDeeperThan(raw.length, MAX_JSON_DEPTH) ? MAX_JSON_DEPTH : Infinity);
  if (outline.tooDeep) throw invalidRequest(`The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  // JSON.parse keeps a repeated key's last value, and some upstreams the first: the gateway would
  // authorise one model (or `stream`, or tool list) and the provider serve another. Parsing keeps one
  // key per name, so fewer keys than the text holds means a repeat; naming it takes a second pass.
  if (outline.keys !== Object.keys(json).length) throw repeatedKey(repeatedRootKey(raw));
  return { json, modelAt: outline.model };
}

function repeatedKey(key: string | undefined): GatewayError {
  const shown = key === undefined ? 'a key' : JSON.stringify(key.length > 100 ? `${key.slice(0, 100)}...` : key);
  return invalidRequest(`The request body has ${shown} more than once at its top level; send each key once.`, key?.slice(0, 100));
}
