/**
 * A complete Responses answer from OpenAI → IR response. A `failed` (or
 * `cancelled`) response is not an answer: it becomes an upstream error.
 */
import { GatewayError } from '../../../errors.js';
import { isObject, type Json } from '../../shallow.js';
import type { Response, TranslateContext } from '../../../translate/ir.js';
import { decodeOutputItem } from './decode-output.js';
import { num, objects, str } from './read.js';
import { decodeUsage, stopReasonOf } from './status.js';

/** The message of a failed response's `error` (or a stream `error` event's), with a fallback. */
export function failureMessage(error: unknown, fallback: string): string {
  return (isObject(error) ? str(error.message) : undefined) ?? fallback;
}

export function decodeResponse(body: Json, ctx: TranslateContext): Response {
  if (body.status === 'failed' || body.status === 'cancelled') {
    const error = isObject(body.error) ? body.error : {};
    const code = str(error.code);
    throw new GatewayError('upstream_error', failureMessage(error, `The upstream response ${String(body.status)}.`), {
      ...(code !== undefined ? { code } : {}),
    });
  }
  const content = objects(body.output).flatMap((item) => decodeOutputItem(item, ctx));
  return {
    id: str(body.id) ?? ctx.newId('resp_'),
    model: str(body.model) ?? ctx.upstreamModel,
    created: num(body.created_at) ?? Math.floor(ctx.now() / 1000),
    content,
    stopReason: stopReasonOf(body, content.some((p) => p.type === 'tool_call')),
    usage: decodeUsage(body.usage),
  };
}
