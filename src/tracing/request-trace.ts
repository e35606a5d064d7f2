/**
 * One request's spans: the request's own (kind server) and one per upstream attempt (kind client).
 * The attributes follow the OpenTelemetry GenAI conventions (`gen_ai.*`) where they exist; the
 * gateway's own facts (route, translation pair, retries, fallbacks) are `model_gateway.*`. Content
 * is kept only with `captureContent`, cut at CONTENT_LIMIT bytes each way.
 */
import type { IncomingMessage } from 'node:http';
import type * as Api from '@opentelemetry/api';
import type { W3CTraceContextPropagator } from '@opentelemetry/core';
import { genAiOperation, genAiSystem } from '../metrics/system.js';
import type { RequestTrace, TracedRoute } from './types.js';

/** What every request's trace is made with, once per gateway. */
export interface TraceKit {
  readonly api: typeof Api;
  readonly tracer: Api.Tracer;
  readonly propagator: W3CTraceContextPropagator;
  readonly captureContent: boolean;
}

/** Bytes of the request body, and of the response, kept on the span with `captureContent`. */
export const CONTENT_LIMIT = 8 * 1024;

/**
 * Why the model stopped, as the response to the caller states it: Chat's `finish_reason`, Messages'
 * `stop_reason`, Gemini's `finishReason`, a Responses answer's `incomplete_details.reason`, else its
 * status once it ended (`completed`, `failed`, `cancelled`): in a stream, the type of its last event;
 * whole, its top-level `status` (see wholeResponseStatus). Read from what is sent, whole events at a
 * time, so one pattern serves every protocol and route.
 */
const FINISH =
  /"(?:finish_reason|stop_reason|finishReason)":\s*"([^"\\]{1,64})"|"incomplete_details":\s*\{\s*"reason":\s*"([^"\\]{1,64})"|"type":\s*"response\.(completed|failed|cancelled)"/g;
/** A whole answer is one JSON object; a Responses one says what it is. Only such a body is parsed for its status. */
const WHOLE_BODY = /^\s*\{/;
const RESPONSE_OBJECT = /"object":\s*"response"/;
const ENDED = new Set(['completed', 'failed', 'cancelled']);
/** Distinct reasons kept (a Chat request may ask for several choices). */
const MAX_REASONS = 8;

const utf8 = (data: Buffer | string, room: number): string =>
  typeof data === 'string' ? data.slice(0, room) : data.subarray(0, room).toString('utf8');

export function requestTrace(kit: TraceKit, req: IncomingMessage, parent: Api.Context): RequestTrace {
  const { api, tracer } = kit;
  // Named after its operation and model once they are known; a request for another endpoint keeps its method.
  const span = tracer.startSpan(
    req.method ?? 'request',
    { kind: api.SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? '', 'url.path': (req.url ?? '').split('?')[0] ?? '' } },
    parent,
  );
  const context = api.trace.setSpan(parent, span);
  let attempt: Api.Span | undefined;
  let attempts = 0;
  let retries = 0;
  let fallbacks = 0;
  let lastRoute: string | undefined;
  let system: string | undefined;
  let request = '';
  let response = '';
  const reasons = new Set<string>();

  return {
    attemptStarted(record, route: TracedRoute) {
      attempt?.end();
      if (lastRoute !== undefined) {
        if (lastRoute === route.name) retries++;
        else fallbacks++;
      }
      lastRoute = route.name;
      attempts++;
      system = genAiSystem(route.target.provider.type);
      const operation = genAiOperation(record.operation);
      attempt = tracer.startSpan(
        `${operation} ${route.target.upstreamModel}`,
        {
          kind: api.SpanKind.CLIENT,
          attributes: {
            'gen_ai.operation.name': operation,
            'gen_ai.system': system,
            'gen_ai.request.model': route.target.upstreamModel,
            'model_gateway.model': route.name,
            'model_gateway.provider': route.target.provider.id,
            'model_gateway.upstream_protocol': route.plan.upstreamProtocol,
            'model_gateway.attempt': attempts,
            ...(record.credential !== undefined ? { 'model_gateway.credential': record.credential } : {}),
          },
        },
        context,
      );
      const carrier: Record<string, string> = {};
      kit.propagator.inject(api.trace.setSpan(context, attempt), carrier, api.defaultTextMapSetter);
      return carrier.traceparent;
    },
    attemptAnswered(status) {
      attempt?.setAttribute('http.response.status_code', status);
    },
    attemptFailed(error) {
      if (!attempt) return;
      attempt.setAttribute('error.type', error.kind);
      if (error.status !== undefined) attempt.setAttribute('http.response.status_code', error.status);
      attempt.setStatus({ code: api.SpanStatusCode.ERROR, message: error.message });
      attempt.end();
      attempt = undefined;
    },
    requestBody(raw) {
      if (kit.captureContent) request = utf8(raw, CONTENT_LIMIT);
    },
    responsePart(data) {
      const room = CONTENT_LIMIT - response.length;
      if (kit.captureContent && room > 0) response += utf8(data, room);
      if (reasons.size >= MAX_REASONS) return;
      const text = typeof data === 'string' ? data : data.toString('latin1');
      for (const m of text.matchAll(FINISH)) {
        if (reasons.size < MAX_REASONS) reasons.add(m[1] ?? m[2] ?? m[3]!);
      }
      if (reasons.size === 0) {
        const status = wholeResponseStatus(text);
        if (status !== undefined) reasons.add(status);
      }
    },
    end(record) {
      const operation = genAiOperation(record.operation);
      const failed = record.errorKind ?? (record.aborted ? 'client_left' : record.error !== undefined ? 'stream_error' : undefined);
      if (attempt) {
        // The attempt whose answer was relayed lasts until the response ends.
        if (record.status !== undefined) attempt.setAttribute('http.response.status_code', record.status);
        if (record.usage?.outputTokens !== undefined) attempt.setAttribute('gen_ai.usage.output_tokens', record.usage.outputTokens);
        if (failed !== undefined) {
          attempt.setAttribute('error.type', failed);
          attempt.setStatus({ code: api.SpanStatusCode.ERROR });
        }
        attempt.end();
      }
      if (record.model !== undefined) span.updateName(`${operation} ${record.model}`);
      const a: Api.Attributes = {
        'gen_ai.operation.name': operation,
        'model_gateway.attempts': attempts,
        'model_gateway.retries': retries,
        'model_gateway.fallbacks': fallbacks,
      };
      const set = (key: string, value: string | number | boolean | undefined) => {
        if (value !== undefined) a[key] = value;
      };
      set('gen_ai.system', system);
      set('gen_ai.request.model', record.model);
      set('gen_ai.response.model', record.upstreamModel);
      set('gen_ai.request.stream', record.stream);
      set('gen_ai.usage.input_tokens', record.usage?.inputTokens);
      set('gen_ai.usage.output_tokens', record.usage?.outputTokens);
      set('gen_ai.usage.cache_read.input_tokens', record.usage?.cachedTokens);
      set('gen_ai.usage.cache_creation.input_tokens', record.usage?.cacheWriteTokens);
      if (reasons.size > 0) a['gen_ai.response.finish_reasons'] = [...reasons];
      set('gen_ai.response.time_to_first_chunk', record.stream && record.ttfbMs !== undefined ? record.ttfbMs / 1000 : undefined);
      set('http.response.status_code', record.status);
      set('model_gateway.protocol', record.protocol);
      set('model_gateway.upstream_protocol', record.upstreamProtocol);
      if (record.protocol !== undefined && record.upstreamProtocol !== undefined) {
        const native = record.protocol === record.upstreamProtocol;
        a['model_gateway.route'] = native ? 'native' : 'translated';
        if (!native) a['model_gateway.translation'] = `${record.protocol}->${record.upstreamProtocol}`;
      }
      set('model_gateway.provider', record.provider);
      set('model_gateway.served_by', record.servedBy);
      set('model_gateway.key_group', record.keyGroup);
      set('model_gateway.limit', record.refusedBy);
      set('model_gateway.cost_usd', typeof record.cost?.usd === 'number' ? record.cost.usd : undefined);
      set('error.type', failed);
      if (kit.captureContent) {
        a['model_gateway.request.body'] = request;
        a['model_gateway.response.body'] = response;
      }
      span.setAttributes(a);
      if (failed !== undefined) span.setStatus({ code: api.SpanStatusCode.ERROR, ...(record.error !== undefined ? { message: record.error } : {}) });
      span.end();
    },
  };
}

/**
 * The status of a whole Responses answer, once it ended: read from the parsed object, so that its
 * items' own `status` fields are not taken for it, whatever order the server writes the keys in.
 * The body was parsed once already on its way here; only a traced request that stated no other reason pays again.
 */
function wholeResponseStatus(text: string): string | undefined {
  if (!WHOLE_BODY.test(text) || !RESPONSE_OBJECT.test(text)) return undefined;
  try {
    const answer: unknown = JSON.parse(text);
    const status = typeof answer === 'object' && answer !== null ? (answer as { status?: unknown }).status : undefined;
    return typeof status === 'string' && ENDED.has(status) ? status : undefined;
  } catch {
    return undefined;
  }
}
