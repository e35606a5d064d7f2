/**
 * What the gateway knows of tracing: a tracer that begins a trace per request (the record carries
 * it, see log/record.ts, and pipeline/events.ts tells it of the attempts as they happen). The
 * OpenTelemetry packages are behind it, loaded only when tracing is on (tracer.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { RequestTrace } from '../log/record.js';

export type { RequestTrace, TracedRoute } from '../log/record.js';

/** Traces requests, when tracing is on. */
export interface Tracer {
  /** The trace of a request that just arrived (its `traceparent` honoured). */
  begin(req: IncomingMessage): RequestTrace;
  /** Sends the spans not sent yet, and stops. */
  shutdown(): Promise<void>;
}
