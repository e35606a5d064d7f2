/**
 * Brings an upstream answer back to the client. Passthrough: bytes go out as
 * they arrive (streams with back-pressure, no re-encoding), while a watcher
 * reads usage for the log. An upstream that dies mid-stream, or ends without
 * its protocol's proper end, gets the protocol's own error frame appended:
 * never a silent truncation.
 */
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../errors.js';
import type { RequestRecord } from '../log/record.js';
import { protocolSpecs } from '../protocols/registry.js';
import { lastUsageObject, parseJson } from '../protocols/json.js';
import type { Protocol } from '../protocols/types.js';
import { transportError } from '../providers/http.js';
import { passBackHeaders } from '../providers/response-headers.js';
import type { Provider, UpstreamResponse } from '../providers/types.js';
import { upstreamHttpError } from '../providers/upstream-error.js';
import { createSseDecoder } from '../sse/parse.js';
import { relayTranslated } from './relay-translated.js';
import { STREAM_HEADERS } from './respond.js';
import { readAll, readText } from './upstream-body.js';
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
    const text = await readText(upstream.body, ERROR_BODY_LIMIT, ctx.signal);
    if (ctx.verbose) (ctx.record.detail ??= {}).upstreamError = text;
    throw upstreamHttpError(ctx.provider.config, upstream.status, upstream.headers, text);
  }
  if (ctx.translation) return relayTranslated(upstream, ctx, ctx.translation);
  const headers = passBackHeaders(upstream.headers);
  const contentType = headers['content-type'] ?? '';
  if (contentType.includes('text/event-stream')) return pipeStream(upstream, headers, ctx);

  const body = await readAll(upstream.body, ctx.provider.config, ctx.signal);
  ctx.res.writeHead(upstream.status, { ...headers, 'content-length': body.length });
  ctx.res.end(body);
  // The answer is on its way; usage for the log comes after. Only --verbose needs the whole body
  // parsed; otherwise the `usage` object alone is read, and the whole body only when that fails.
  if (!contentType.includes('json')) return;
  const spec = protocolSpecs[ctx.protocol];
  if (ctx.verbose) {
    const whole = parseJson(body.toString('utf8'));
    ctx.record.usage = spec.usage(whole);
    Object.assign((ctx.record.detail ??= {}), { responseHeaders: headers, responseBody: whole ?? body.toString('utf8') });
    return;
  }
  const usage = lastUsageObject(body);
  ctx.record.usage = spec.usage(usage ? { usage } : parseJson(body.toString('utf8')));
}

function pipeStream(upstream: UpstreamResponse, headers: Record<string, string>, ctx: RelayContext): Promise<void> {
  const { res, record } = ctx;
  const body = upstream.body;
  const decoder = createSseDecoder();
  const watch = protocolSpecs[ctx.protocol].watchStream();
  let captured = '';

  const sent = { ...headers, ...STREAM_HEADERS };
  res.writeHead(upstream.status, sent);
  res.flushHeaders();
  if (ctx.verbose) (record.detail ??= {}).responseHeaders = sent;

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
