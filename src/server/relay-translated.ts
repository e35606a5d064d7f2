/**
 * Brings a translated answer back: the upstream's JSON or stream, decoded from
 * its protocol and encoded into the caller's as it arrives (see translate/).
 */
import { GatewayError } from '../errors.js';
import { isObject, parseJson } from '../protocols/json.js';
import { protocolSpecs } from '../protocols/registry.js';
import { decodeUtf8 } from '../protocols/decode-utf8.js';
import { passBackHeaders } from '../providers/response-headers.js';
import type { UpstreamResponse } from '../providers/types.js';
import { createSseDecoder } from '../sse/parse.js';
import { wholeEvents } from '../sse/whole-events.js';
import { capture, lastAttempt } from '../log/exchange.js';
import { captureUpstream, eventTooLarge, streamFailure, type RelayContext, type Translation } from './relay-context.js';
import { STREAM_HEADERS, captureResponse, writeOrPause } from './respond.js';
import { readAll } from './upstream-body.js';


/** Headers for a translated answer: the upstream's ids and rate-limit hints, with our own content type. */
function translatedHeaders(upstream: UpstreamResponse, t: Translation, contentType: string): Record<string, string> {
  const { 'content-type': _type, ...passed } = passBackHeaders(upstream.headers);
  return { ...passed, ...t.headers, 'content-type': contentType };
}

export async function relayTranslated(upstream: UpstreamResponse, ctx: RelayContext, t: Translation): Promise<void> {
  const { res, record } = ctx;
  const upstreamType = upstream.headers['content-type'];
  const upstreamIsStream = typeof upstreamType === 'string' && upstreamType.includes('text/event-stream');
  if (t.stream && upstreamIsStream) return pipeTranslatedStream(upstream, ctx, t);

  const body = await readAll(upstream, ctx.provider.config, ctx.signal, ctx.maxResponseBytes);
  const attempt = lastAttempt(record.exchange);
  if (attempt) captureUpstream(ctx, attempt, body);
  const json = parseJson(decodeUtf8(body));
  if (!isObject(json) || upstreamIsStream) {
    throw new GatewayError('upstream_error', `Provider '${ctx.provider.id}' sent a response the gateway could not read.`, {
      cause: body.toString('utf8').slice(0, 2000),
    });
  }
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
      out = JSON.stringify(translated);
      contentType = 'application/json';
    }
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    throw new GatewayError('upstream_error', `Provider '${ctx.provider.id}' sent a response the gateway could not translate.`, {
      cause: err,
    });
  }
  const headers = { ...translatedHeaders(upstream, t, contentType), 'content-length': Buffer.byteLength(out) };
  captureResponse(record, 200, headers, out);
  res.writeHead(200, headers);
  res.end(out);
}

function pipeTranslatedStream(upstream: UpstreamResponse, ctx: RelayContext, t: Translation): Promise<void> {
  const { res, record } = ctx;
  const body = upstream.body;
  const decoder = createSseDecoder();
  const events = wholeEvents(ctx.maxResponseBytes);
  const stream = t.translator.stream(t.ctx, t.callerBody);
  const attempt = lastAttempt(record.exchange);
  const exchange = record.exchange;

  const sent = { ...translatedHeaders(upstream, t, 'text/event-stream; charset=utf-8'), ...STREAM_HEADERS };
  captureResponse(record, 200, sent);
  res.writeHead(200, sent);
  // As in passthrough (relay.ts): when the upstream's first chunk came with its headers, ours go out
  // with the first translated output, in one write; if that chunk yields none, they go on their own.
  let headersOut = body.readableLength === 0;
  if (headersOut) res.flushHeaders();

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
          ...(usage.cacheWriteTokens ? { cacheWriteTokens: usage.cacheWriteTokens } : {}),
        };
      }
      if (exchange && tail) capture(exchange, exchange.response, performance.now() - record.start, tail);
      if (!res.destroyed) res.end(tail);
      resolve();
    };
    const write = (text: string) => {
      if (text === '') return;
      if (record.ttfbMs === undefined) record.ttfbMs = performance.now() - record.start;
      if (exchange) capture(exchange, exchange.response, performance.now() - record.start, text);
      writeOrPause(res, text, body);
    };

    body.on('data', (chunk: Buffer) => {
      if (attempt) captureUpstream(ctx, attempt, chunk);
      // Whole events only reach the decoder, so what it holds is bounded as the passthrough's is (relay.ts).
      const whole = events.push(chunk);
      if (whole === undefined) {
        const err = eventTooLarge(ctx);
        record.error = err.message;
        if (attempt) attempt.error ??= err.message;
        body.destroy();
        return finish(stream.fail(err.message));
      }
      if (whole.length === 0) return;
      let out = '';
      try {
        for (const event of decoder.push(whole)) out += stream.push(event);
      } catch (err) {
        // A translator bug or an upstream event it cannot read must still end the caller's stream properly.
        record.error = `translation failed: ${err instanceof Error ? err.message : String(err)}`;
        if (attempt) attempt.error ??= record.error;
        body.destroy();
        return finish(out + stream.fail(`The gateway could not translate the stream from provider '${ctx.provider.id}'.`));
      }
      write(out);
      if (!headersOut) {
        headersOut = true;
        if (out === '') res.flushHeaders();
      }
    });
    body.once('end', () => {
      let out = '';
      try {
        for (const event of decoder.push(events.rest())) out += stream.push(event);
        for (const event of decoder.end()) out += stream.push(event);
      } catch (err) {
        record.error = `translation failed: ${err instanceof Error ? err.message : String(err)}`;
        if (attempt) attempt.error ??= record.error;
        return finish(out + stream.fail(`The gateway could not translate the stream from provider '${ctx.provider.id}'.`));
      }
      if (!stream.finished) {
        record.error = `Provider '${ctx.provider.id}' ended the stream before it was complete.`;
        if (attempt) attempt.error ??= record.error;
      }
      finish(out + stream.end());
    });
    body.once('error', (cause: Error) => {
      const err = streamFailure(cause, ctx);
      if (!err) return finish('');
      record.error = err.message;
      if (attempt) attempt.error ??= err.message;
      finish(stream.fail(err.message));
    });
    res.on('close', () => {
      if (!settled) {
        body.destroy();
        finish('');
      }
    });
  });
}
