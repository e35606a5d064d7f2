/**
 * Whole answers (JSON, not streamed): read whole already by the transport (most), or read
 * here, then sent with their length. Passthrough sends the upstream's bytes; a translated
 * route decodes them and sends the caller's shape, or the caller's stream when it asked for
 * one and the upstream answered in one piece.
 */
import { GatewayError } from '../../errors.js';
import { isObject, lastUsageObject, parseJson } from '../../protocols/json.js';
import { protocols } from '../../protocols/registry.js';
import { decodeUtf8 } from '../../protocols/decode-utf8.js';
import { passBackHeaders } from '../../providers/response-headers.js';
import { renameFirstModel, renamesAnswer } from './answer-model.js';
import { droppedHeader } from './dropped.js';
import type { UpstreamResponse } from '../../providers/types.js';
import { keepFromStream, keepResponse } from '../../responses-store/keep.js';
import { readAll } from './answer-body.js';
import { answerBody, answerHead, answerIsUpstream, upstreamChunk, usageRead } from '../events.js';
import { contentTypeOf, type RelayContext, type Translation } from './context.js';
import { translatedHeaders } from './translated.js';

const DONE = Promise.resolve();

/**
 * The upstream's answer as it came. One read whole by the transport is sent at once rather than
 * through readAll, whose promise would cost the small request a turn of the queue.
 */
export function passWhole(ctx: RelayContext, upstream: UpstreamResponse): Promise<void> {
  if (upstream.whole) {
    sendWhole(ctx, upstream, upstream.whole);
    return DONE;
  }
  return readAll(ctx, upstream).then((body) => sendWhole(ctx, upstream, body));
}

function sendWhole(ctx: RelayContext, upstream: UpstreamResponse, body: Buffer): void {
  const { record } = ctx;
  const isJson = contentTypeOf(upstream.headers).includes('json');
  const { model, upstreamModel } = record;
  const sent = isJson && protocols[ctx.protocol].renamesAnswerModel && renamesAnswer(model, upstreamModel) ? renameFirstModel(body, model).out : body;
  const headers: Record<string, string | number> = passBackHeaders(upstream.headers);
  headers['content-length'] = sent.length;
  const dropped = droppedHeader(record.warnings);
  if (dropped !== undefined) headers['x-model-gateway-dropped'] = dropped;
  upstreamChunk(record, body);
  answerHead(record, upstream.status, headers);
  if (sent === body) answerIsUpstream(record, body);
  else answerBody(record, sent);
  ctx.res.writeHead(upstream.status, headers);
  ctx.res.end(sent);
  // The answer is on its way; usage for the log comes after: the `usage` object alone is read,
  // and the whole body only when that fails.
  if (!isJson) return;
  const usage = lastUsageObject(body);
  usageRead(record, protocols[ctx.protocol].usage(usage ? { usage } : parseJson(body.toString('utf8'))));
}

/** The upstream's whole answer in the caller's protocol: as JSON, or replayed as the caller's stream. */
export async function translateWhole(ctx: RelayContext, upstream: UpstreamResponse, t: Translation): Promise<void> {
  const { res, record } = ctx;
  const upstreamIsStream = contentTypeOf(upstream.headers).includes('text/event-stream');
  const body = await readAll(ctx, upstream);
  upstreamChunk(record, body);
  const json = parseJson(decodeUtf8(body));
  if (!isObject(json) || upstreamIsStream) {
    throw new GatewayError('upstream_error', `Provider '${ctx.provider.id}' sent a response the gateway could not read.`, {
      cause: body.toString('utf8').slice(0, 2000),
    });
  }
  // The log reads the upstream's own usage: the caller's protocol may have no field for some of it (cache writes).
  usageRead(record, protocols[t.ctx.upstream].usage(json));
  let out: string;
  let contentType: string;
  try {
    if (t.stream) {
      // Asked to stream, answered in one piece (some servers do): replay it as the caller's stream.
      out = t.translator.responseAsStream(json, t.ctx, t.callerBody);
      if (t.keep) keepFromStream(t.keep, out);
      contentType = 'text/event-stream; charset=utf-8';
    } else {
      const translated = t.translator.response(json, t.ctx, t.callerBody);
      if (t.keep) keepResponse(t.keep, translated);
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
  answerHead(record, 200, headers);
  answerBody(record, out);
  res.writeHead(200, headers);
  res.end(out);
}
