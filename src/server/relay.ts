/**
 * Brings an upstream answer back to the client. Passthrough: bytes go out as
 * they arrive (streams with back-pressure, no re-encoding), while a watcher
 * reads usage for the log. An upstream that dies mid-stream, or ends without
 * its protocol's proper end, gets the protocol's own error frame appended:
 * never a silent truncation.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { GatewayError } from '../errors.js';
import type { RequestRecord } from '../log/record.js';
import { protocolSpecs } from '../protocols/registry.js';
import { parseJson } from '../protocols/json.js';
import { isObject } from '../protocols/shallow.js';
import type { Protocol } from '../protocols/types.js';
import { transportError } from '../providers/http.js';
import { passBackHeaders } from '../providers/response-headers.js';
import type { Provider, UpstreamResponse } from '../providers/types.js';
import { upstreamHttpError } from '../providers/upstream-error.js';
import { createSseDecoder } from '../sse/parse.js';
import type { TranslateContext } from '../translate/ir.js';
import type { Translator } from '../translate/translator.js';

/** Error bodies are read up to this size; the rest is discarded. */
const ERROR_BODY_LIMIT = 64 * 1024;
/** With --verbose, this much of a stream is kept for the log. */
const VERBOSE_STREAM_LIMIT = 64 * 1024;

export interface Translation {
  readonly translator: Translator;
  readonly ctx: TranslateContext;
  /** The caller's request, which some results echo (Responses) or consult (Chat `include_usage`). */
  readonly callerBody: Record<string, unknown>;
  /** Whether the caller asked for a stream. */
  readonly stream: boolean;
  /** Gateway headers for the caller (what was translated, what was dropped). */
  readonly headers: Record<string, string>;
}

export interface RelayContext {
  readonly res: ServerResponse;
  readonly protocol: Protocol;
  readonly provider: Provider;
  readonly record: RequestRecord;
  readonly verbose: boolean;
  readonly signal: AbortSignal;
  readonly translation?: Translation;
}

export async function relay(upstream: UpstreamResponse, ctx: RelayContext): Promise<void> {
  if (upstream.status < 200 || upstream.status >= 300) {
    const text = await readText(upstream.body, ERROR_BODY_LIMIT, ctx);
    if (ctx.verbose) (ctx.record.detail ??= {}).upstreamError = text;
    throw upstreamHttpError(ctx.provider.config, upstream.status, upstream.headers, text);
  }
  if (ctx.translation) return relayTranslated(upstream, ctx, ctx.translation);
  const headers = passBackHeaders(upstream.headers);
  const contentType = headers['content-type'] ?? '';
  if (contentType.includes('text/event-stream')) return pipeStream(upstream, headers, ctx);

  const body = await readAll(upstream.body, ctx);
  const json = contentType.includes('json') ? parseJson(body.toString('utf8')) : undefined;
  ctx.record.usage = protocolSpecs[ctx.protocol].usage(json);
  if (ctx.verbose) Object.assign((ctx.record.detail ??= {}), { responseHeaders: headers, responseBody: json ?? body.toString('utf8') });
  ctx.res.writeHead(upstream.status, { ...headers, 'content-length': body.length });
  ctx.res.end(body);
}

function pipeStream(upstream: UpstreamResponse, headers: Record<string, string>, ctx: RelayContext): Promise<void> {
  const { res, record } = ctx;
  const body = upstream.body;
  const decoder = createSseDecoder();
  const watch = protocolSpecs[ctx.protocol].watchStream();
  let captured = '';

  res.writeHead(upstream.status, { ...headers, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  res.flushHeaders();
  if (ctx.verbose) (record.detail ??= {}).responseHeaders = res.getHeaders();

  return new Promise((resolve) => {
    let settled = false;
    const finish = (tail?: string) => {
      if (settled) return;
      settled = true;
      record.usage = watch.usage;
      if (ctx.verbose) (record.detail ??= {}).responseBody = captured;
      if (!res.destroyed) res.end(tail);
      resolve();
    };

    body.on('data', (chunk: Buffer) => {
      if (record.ttfbMs === undefined) record.ttfbMs = performance.now() - record.start;
      for (const event of decoder.push(chunk)) watch.onEvent(event);
      if (ctx.verbose && captured.length < VERBOSE_STREAM_LIMIT) captured += chunk.toString('utf8');
      if (!res.write(chunk)) {
        body.pause();
        res.once('drain', () => body.resume());
      }
    });
    body.once('end', () => {
      for (const event of decoder.end()) watch.onEvent(event);
      if (watch.finished) return finish();
      const err = new GatewayError('upstream_error', `Provider '${ctx.provider.id}' ended the stream before it was complete.`);
      record.error = err.message;
      finish(watch.errorFrames(err));
    });
    body.once('error', (cause: Error) => {
      if (ctx.signal.aborted || res.destroyed) return finish();
      const mapped = transportError(cause, ctx.provider.config);
      const detail = mapped instanceof GatewayError ? `: ${mapped.message}` : '.';
      const kind = mapped instanceof GatewayError && mapped.kind === 'timeout' ? 'timeout' : 'upstream_error';
      const err = new GatewayError(kind, `The stream from provider '${ctx.provider.id}' broke off${detail}`);
      record.error = err.message;
      finish(watch.errorFrames(err));
    });
    res.once('close', () => {
      if (!settled) {
        body.destroy();
        finish();
      }
    });
  });
}

function readAll(body: Readable, ctx: RelayContext): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (c: Buffer) => chunks.push(c));
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    body.once('error', (err) => reject(transportError(err, ctx.provider.config, ctx.signal)));
  });
}

/** Reads up to `limit` bytes as text and discards the rest, so the connection can be reused. */
function readText(body: Readable, limit: number, ctx: RelayContext): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (c: Buffer) => {
      if (size < limit) chunks.push(c);
      size += c.length;
    });
    const done = () => resolve(Buffer.concat(chunks).subarray(0, limit).toString('utf8'));
    body.once('end', done);
    body.once('error', () => done());
    ctx.signal.addEventListener('abort', done, { once: true });
  });
}

/** Headers for a translated answer: the upstream's ids and rate-limit hints, with our own content type. */
function translatedHeaders(upstream: UpstreamResponse, t: Translation, contentType: string): Record<string, string> {
  const { 'content-type': _type, 'content-encoding': _encoding, ...passed } = passBackHeaders(upstream.headers);
  return { ...passed, ...t.headers, 'content-type': contentType };
}

async function relayTranslated(upstream: UpstreamResponse, ctx: RelayContext, t: Translation): Promise<void> {
  const { res, record } = ctx;
  const upstreamIsStream = (passBackHeaders(upstream.headers)['content-type'] ?? '').includes('text/event-stream');
  if (t.stream && upstreamIsStream) return pipeTranslatedStream(upstream, ctx, t);

  const body = await readAll(upstream.body, ctx);
  const json = parseJson(body.toString('utf8'));
  if (!isObject(json) || upstreamIsStream) {
    throw new GatewayError('upstream_error', `Provider '${ctx.provider.id}' sent a response the gateway could not read.`, {
      cause: body.toString('utf8').slice(0, 2000),
    });
  }
  if (ctx.verbose) (record.detail ??= {}).upstreamResponseBody = json;
  let out: string;
  let contentType: string;
  try {
    if (t.stream) {
      // Asked to stream, answered in one piece (some servers do): replay it as the caller's stream.
      out = t.translator.responseAsStream(json, t.ctx, t.callerBody);
      contentType = 'text/event-stream; charset=utf-8';
    } else {
      const translated = t.translator.response(json, t.ctx, t.callerBody);
      record.usage = protocolSpecs[ctx.protocol].usage(translated);
      if (ctx.verbose) (record.detail ??= {}).responseBody = translated;
      out = JSON.stringify(translated);
      contentType = 'application/json';
    }
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    throw new GatewayError('upstream_error', `Provider '${ctx.provider.id}' sent a response the gateway could not translate.`, {
      cause: err,
    });
  }
  const headers = translatedHeaders(upstream, t, contentType);
  res.writeHead(200, { ...headers, 'content-length': Buffer.byteLength(out) });
  res.end(out);
}

function pipeTranslatedStream(upstream: UpstreamResponse, ctx: RelayContext, t: Translation): Promise<void> {
  const { res, record } = ctx;
  const body = upstream.body;
  const decoder = createSseDecoder();
  const stream = t.translator.stream(t.ctx, t.callerBody);
  let captured = '';

  res.writeHead(200, { ...translatedHeaders(upstream, t, 'text/event-stream; charset=utf-8'), 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  res.flushHeaders();
  if (ctx.verbose) (record.detail ??= {}).responseHeaders = res.getHeaders();

  return new Promise((resolve) => {
    let settled = false;
    const finish = (tail: string) => {
      if (settled) return;
      settled = true;
      const usage = stream.usage;
      if (usage) {
        record.usage = {
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          ...(usage.cacheReadTokens ? { cachedTokens: usage.cacheReadTokens } : {}),
        };
      }
      if (ctx.verbose) (record.detail ??= {}).responseBody = captured + tail;
      if (!res.destroyed) res.end(tail);
      resolve();
    };
    const write = (text: string) => {
      if (text === '') return;
      if (record.ttfbMs === undefined) record.ttfbMs = performance.now() - record.start;
      if (ctx.verbose && captured.length < VERBOSE_STREAM_LIMIT) captured += text;
      if (!res.write(text)) {
        body.pause();
        res.once('drain', () => body.resume());
      }
    };

    body.on('data', (chunk: Buffer) => {
      let out = '';
      try {
        for (const event of decoder.push(chunk)) out += stream.push(event);
      } catch (err) {
        // A translator bug or an upstream event it cannot read must still end the caller's stream properly.
        record.error = `translation failed: ${err instanceof Error ? err.message : String(err)}`;
        body.destroy();
        return finish(out + stream.fail(`The gateway could not translate the stream from provider '${ctx.provider.id}'.`));
      }
      write(out);
    });
    body.once('end', () => {
      let out = '';
      for (const event of decoder.end()) out += stream.push(event);
      if (!stream.finished) record.error = `Provider '${ctx.provider.id}' ended the stream before it was complete.`;
      finish(out + stream.end());
    });
    body.once('error', (cause: Error) => {
      if (ctx.signal.aborted || res.destroyed) return finish('');
      const mapped = transportError(cause, ctx.provider.config);
      const message = `The stream from provider '${ctx.provider.id}' broke off${mapped instanceof GatewayError ? `: ${mapped.message}` : '.'}`;
      record.error = message;
      finish(stream.fail(message));
    });
    res.once('close', () => {
      if (!settled) {
        body.destroy();
        finish('');
      }
    });
  });
}
