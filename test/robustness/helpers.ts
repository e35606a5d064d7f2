/**
 * Shared pieces of the robustness suite: the endpoint table, error-shape checks
 * per protocol family, a raw HTTP/1.1 client for faults the SDKs cannot produce,
 * and a config with echo providers that each speak one protocol (so the others
 * are translated).
 */
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import type { ErrorFamily, Protocol as GatewayProtocol } from '#src/protocols/types.js';
import { GATEWAY_KEY, testConfig } from '../helpers/start-gateway.js';

export type Family = ErrorFamily;
/** The protocols the scripted upstreams answer in (upstream-scripts.ts): Gemini is not among them yet. */
export type Protocol = 'chat' | 'responses' | 'messages';

export interface EndpointCase {
  readonly name: string;
  /** The path (a Gemini endpoint's: for the model `echo`, whole). */
  readonly path: string;
  /** The path of a request for `model`, streamed or not, where the path names them (Gemini's). */
  readonly pathFor?: (model: string, stream: boolean) => string;
  readonly protocol: GatewayProtocol;
  readonly operation: 'create' | 'count_tokens';
  readonly family: Family;
  /** A valid request body for `model`. */
  body(model: string, text?: string): Record<string, unknown>;
  /** The headers a well-behaved client of this endpoint sends (JSON, key, version). */
  headers(key?: string): Record<string, string>;
}

const openaiHeaders = (key = GATEWAY_KEY) => ({ 'content-type': 'application/json', authorization: `Bearer ${key}` });
const anthropicHeaders = (key = GATEWAY_KEY) => ({ 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' });

export const CHAT: EndpointCase = {
  name: 'chat',
  path: '/v1/chat/completions',
  protocol: 'chat',
  operation: 'create',
  family: 'openai',
  body: (model, text = 'hi') => ({ model, messages: [{ role: 'user', content: text }] }),
  headers: openaiHeaders,
};
export const RESPONSES: EndpointCase = {
  name: 'responses',
  path: '/v1/responses',
  protocol: 'responses',
  operation: 'create',
  family: 'openai',
  body: (model, text = 'hi') => ({ model, input: text }),
  headers: openaiHeaders,
};
export const MESSAGES: EndpointCase = {
  name: 'messages',
  path: '/v1/messages',
  protocol: 'messages',
  operation: 'create',
  family: 'anthropic',
  body: (model, text = 'hi') => ({ model, max_tokens: 64, messages: [{ role: 'user', content: text }] }),
  headers: anthropicHeaders,
};
export const COUNT_TOKENS: EndpointCase = {
  name: 'count_tokens',
  path: '/v1/messages/count_tokens',
  protocol: 'messages',
  operation: 'count_tokens',
  family: 'anthropic',
  body: (model, text = 'hi') => ({ model, messages: [{ role: 'user', content: text }] }),
  headers: anthropicHeaders,
};
export const ENDPOINTS: readonly EndpointCase[] = [CHAT, RESPONSES, MESSAGES, COUNT_TOKENS];

const googleHeaders = (key = GATEWAY_KEY) => ({ 'content-type': 'application/json', 'x-goog-api-key': key });
/** Gemini's path names the model and the method; a stream is asked for as server-sent events. */
const geminiPath = (model: string, method: string) => `/v1beta/models/${encodeURIComponent(model)}:${method}${method === 'streamGenerateContent' ? '?alt=sse' : ''}`;

export const GEMINI: EndpointCase = {
  name: 'gemini',
  path: geminiPath('echo', 'generateContent'),
  pathFor: (model, stream) => geminiPath(model, stream ? 'streamGenerateContent' : 'generateContent'),
  protocol: 'gemini',
  operation: 'create',
  family: 'google',
  body: (_model, text = 'hi') => ({ contents: [{ role: 'user', parts: [{ text }] }] }),
  headers: googleHeaders,
};
export const GEMINI_COUNT_TOKENS: EndpointCase = {
  name: 'gemini countTokens',
  path: geminiPath('echo', 'countTokens'),
  pathFor: (model) => geminiPath(model, 'countTokens'),
  protocol: 'gemini',
  operation: 'count_tokens',
  family: 'google',
  body: (_model, text = 'hi') => ({ contents: [{ role: 'user', parts: [{ text }] }] }),
  headers: googleHeaders,
};
/** Gemini's endpoints, apart from ENDPOINTS: their paths depend on the model (`pathFor`), which the suites sending to ENDPOINTS do not ask. */
export const GEMINI_ENDPOINTS: readonly EndpointCase[] = [GEMINI, GEMINI_COUNT_TOKENS];

/** Echo models: `echo` speaks every protocol (native); each `echo-<p>` speaks only `p`, so other callers are translated. */
export const ECHO_MODELS = ['echo', 'echo-chat', 'echo-responses', 'echo-messages', 'echo-gemini'] as const;

/** The shared test config plus one echo provider per protocol. */
export function robustConfig(upstreamUrl: string, extra: Partial<WrittenConfig> = {}): WrittenConfig {
  const base = testConfig(upstreamUrl);
  return {
    ...base,
    providers: {
      ...base.providers,
      'echo-chat': { type: 'echo', protocols: ['chat'] },
      'echo-responses': { type: 'echo', protocols: ['responses'] },
      'echo-messages': { type: 'echo', protocols: ['messages'] },
      'echo-gemini': { type: 'echo', protocols: ['gemini'] },
    },
    models: {
      ...base.models,
      'echo-chat': { provider: 'echo-chat' },
      'echo-responses': { provider: 'echo-responses' },
      'echo-messages': { provider: 'echo-messages' },
      'echo-gemini': { provider: 'echo-gemini' },
    },
    ...extra,
  } as WrittenConfig;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Why `json` is not an error body of `family`, or undefined when it is one.
 * OpenAI: exactly `{error:{message,type,param,code}}`; Anthropic: `{type:'error',error:{type,message},request_id?}`;
 * Google: `{error:{code,message,status}}`, the code an HTTP error status and the status a canonical name.
 */
export function errorShapeProblem(family: Family, json: unknown): string | undefined {
  if (!isObject(json)) return 'the body is not a JSON object';
  if (family === 'google') {
    if (Object.keys(json).join() !== 'error') return `top-level keys are ${Object.keys(json).join()}`;
    const e = json.error;
    if (!isObject(e)) return '`error` is not an object';
    if (Object.keys(e).sort().join() !== 'code,message,status') return `error keys are ${Object.keys(e).join()}`;
    if (!Number.isInteger(e.code) || (e.code as number) < 400 || (e.code as number) > 599) return 'error.code is not an HTTP error status';
    if (typeof e.message !== 'string' || e.message === '') return 'error.message is not a non-empty string';
    if (typeof e.status !== 'string' || !/^[A-Z_]+$/.test(e.status)) return 'error.status is not a canonical status name';
    return undefined;
  }
  if (family === 'openai') {
    if (Object.keys(json).join() !== 'error') return `top-level keys are ${Object.keys(json).join()}`;
    const e = json.error;
    if (!isObject(e)) return '`error` is not an object';
    if (Object.keys(e).sort().join() !== 'code,message,param,type') return `error keys are ${Object.keys(e).join()}`;
    if (typeof e.message !== 'string' || e.message === '') return 'error.message is not a non-empty string';
    if (typeof e.type !== 'string' || e.type === '') return 'error.type is not a non-empty string';
    if (e.param !== null && typeof e.param !== 'string') return 'error.param is neither a string nor null';
    if (e.code !== null && typeof e.code !== 'string') return 'error.code is neither a string nor null';
    return undefined;
  }
  const extra = Object.keys(json).filter((k) => k !== 'type' && k !== 'error' && k !== 'request_id');
  if (extra.length > 0) return `unexpected top-level keys ${extra.join()}`;
  if (json.type !== 'error') return 'type is not "error"';
  const e = json.error;
  if (!isObject(e)) return '`error` is not an object';
  if (Object.keys(e).sort().join() !== 'message,type') return `error keys are ${Object.keys(e).join()}`;
  if (typeof e.type !== 'string' || e.type === '') return 'error.type is not a non-empty string';
  if (typeof e.message !== 'string' || e.message === '') return 'error.message is not a non-empty string';
  if (json.request_id !== undefined && typeof json.request_id !== 'string') return 'request_id is not a string';
  return undefined;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** Asserts `res` is a JSON error of `status` in `family`'s shape; returns the parsed body. */
export function expectError(res: HttpAnswer, status: number, family: Family): Record<string, unknown> {
  expect(res.status, res.text).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  let json: unknown;
  expect(() => (json = JSON.parse(res.text)), res.text).not.toThrow();
  expect(errorShapeProblem(family, json), res.text).toBeUndefined();
  return json as Record<string, unknown>;
}

/** The `error` object of an error body of either family. */
export const errorOf = (json: Record<string, unknown>) => json.error as { message: string; type: string; param?: string | null; code?: string | null };

// ---------------------------------------------------------------------------------------------------------------------
// A raw HTTP/1.1 client: writes exactly the bytes given, parses what comes back, and tells when the socket closes.

export interface RawResponse extends HttpAnswer {
  readonly body: Buffer;
  readonly json: unknown;
}

export class RawClient {
  private buffer = Buffer.alloc(0);
  private notify: (() => void) | undefined;
  private isClosed = false;
  /** Resolves when the server closed (or reset) the connection. */
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, d]);
      this.notify?.();
    });
    socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.isClosed = true;
        this.notify?.();
        resolve();
      }),
    );
  }

  static open(baseUrl: string): Promise<RawClient> {
    const { hostname, port } = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  get isOpen(): boolean {
    return !this.isClosed;
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.write(data, () => resolve());
    });
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** Waits for the next complete response (by content-length, chunked framing, or the close of the connection). */
  async response(timeoutMs = 5000): Promise<RawResponse> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseResponse(this.buffer, this.isClosed);
      if (parsed) {
        this.buffer = this.buffer.subarray(parsed.consumed);
        return parsed.response;
      }
      if (this.isClosed) throw new Error(`connection closed without a complete response: ${JSON.stringify(this.buffer.toString('latin1').slice(0, 200))}`);
      const left = until - Date.now();
      if (left <= 0) throw new Error(`no complete response within ${timeoutMs}ms: ${JSON.stringify(this.buffer.toString('latin1').slice(0, 200))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.notify = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.notify = undefined;
    }
  }

  /** Resolves true if the server closes the connection within `ms`. */
  async closesWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      this.closed.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
    ]);
    clearTimeout(timer);
    return result;
  }
}

function parseResponse(buf: Buffer, closed: boolean): { response: RawResponse; consumed: number } | undefined {
  const headEnd = buf.indexOf('\r\n\r\n');
  if (headEnd === -1) return undefined;
  const [statusLine = '', ...lines] = buf.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const colon = l.indexOf(':');
    const name = l.slice(0, colon).trim().toLowerCase();
    const value = l.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let at = headEnd + 4;
  let body: Buffer;
  if (status === 100) return { response: answer(status, headers, Buffer.alloc(0)), consumed: at };
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (buf.length < at + length) return undefined;
    body = buf.subarray(at, at + length);
    at += length;
  } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    for (;;) {
      const lineEnd = buf.indexOf('\r\n', at);
      if (lineEnd === -1) return undefined;
      const size = parseInt(buf.subarray(at, lineEnd).toString('latin1'), 16);
      if (buf.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
      if (size === 0) break;
    }
    body = Buffer.concat(parts);
  } else if (status === 204 || status === 304) {
    body = Buffer.alloc(0);
  } else {
    // No framing: the body runs to the close of the connection.
    if (!closed) return undefined;
    body = buf.subarray(at);
    at = buf.length;
  }
  return { response: answer(status, headers, body), consumed: at };
}

function answer(status: number, headers: Record<string, string>, body: Buffer): RawResponse {
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers, body, text, json };
}

/** A request head in HTTP/1.1 wire form. */
export function requestHead(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Sends one whole request on a fresh connection (closed after the answer) and returns the answer. */
export async function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string | number>,
  body: string | Buffer = '',
): Promise<RawResponse> {
  const client = await RawClient.open(baseUrl);
  try {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    await client.write(Buffer.concat([Buffer.from(requestHead(method, path, { ...headers, 'content-length': bytes.length, connection: 'close' })), bytes]));
    return await client.response();
  } finally {
    client.destroy();
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` every 10 ms until it is true or `ms` passed; returns its last value. */
export async function eventually(check: () => boolean, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) return false;
    await sleep(10);
  }
  return true;
}

/** Races `promise` against a timer; resolves `fallback` if the timer wins. */
export async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const out = await Promise.race([promise, new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]);
  clearTimeout(timer);
  return out;
}

/**
 * A full garbage collection, so heap figures compare live objects rather than GC timing. Uses
 * `global.gc` when node runs with --expose-gc, else turns the flag on at run time (a V8 flag
 * that takes effect for contexts created after it is set).
 */
export function collectGarbage(): void {
  let gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as (() => void) | undefined;
  }
  gc?.();
}

/** Heap in use after a full collection. */
export function liveHeap(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}
