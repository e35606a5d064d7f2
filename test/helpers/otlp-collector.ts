/**
 * A stand-in for an OpenTelemetry collector on 127.0.0.1: takes `POST /v1/traces` in OTLP/HTTP,
 * protobuf or JSON as the content type says, decodes each export into plain spans (ids in hex,
 * attributes as plain values) and keeps them for the test to read.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/** A span attribute's value; arrays hold the plain kinds (nested arrays are not an OTLP attribute). */
export type AttributeValue = string | number | boolean | AttributeValue[];

export interface CollectedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: number; readonly message: string };
  readonly resource: Readonly<Record<string, unknown>>;
}

export interface Collector {
  /** The base URL, as `tracing.otlpEndpoint` takes it. */
  readonly url: string;
  readonly spans: CollectedSpan[];
  /** The content types of the exports received, in order. */
  readonly contentTypes: string[];
  close(): Promise<void>;
}

// The part of OTLP's trace service messages (opentelemetry-proto, trace/v1 and common/v1) the tests read.
const PROTO = `
syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5;
  int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10; Status status = 15; fixed32 flags = 16;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; bytes bytes_value = 7; }
}
message ArrayValue { repeated AnyValue values = 1; }
`;
const ExportRequest = protobuf.parse(PROTO, { keepCase: false }).root.lookupType('ExportTraceServiceRequest');

type Plain = Record<string, unknown>;
const arr = (v: unknown): Plain[] => (Array.isArray(v) ? (v as Plain[]) : []);


/** An AnyValue as a plain value: OTLP/JSON writes int64 as a string, protobufjs decodes it as a string (longs: String). */
function anyValue(v: Plain | undefined): AttributeValue {
  if (!v) return '';
  if (v.arrayValue !== undefined) return arr((v.arrayValue as Plain).values).map((x) => anyValue(x));
  if (v.stringValue !== undefined) return String(v.stringValue);
  if (v.boolValue !== undefined) return Boolean(v.boolValue);
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  return JSON.stringify(v);
}

const attributes = (list: unknown): Record<string, AttributeValue> =>
  Object.fromEntries(arr(list).map((kv) => [String(kv.key), anyValue(kv.value as Plain | undefined)]));

/** An id: hex in OTLP/JSON, bytes in protobuf (decoded here as base64 by toObject). */
const hexId = (v: unknown, json: boolean): string => (typeof v !== 'string' || v === '' ? '' : json ? v.toLowerCase() : Buffer.from(v, 'base64').toString('hex'));

function spansOf(message: Plain, json: boolean): CollectedSpan[] {
  const out: CollectedSpan[] = [];
  for (const rs of arr(message.resourceSpans)) {
    const resource = attributes((rs.resource as Plain | undefined)?.attributes);
    for (const ss of arr(rs.scopeSpans)) {
      for (const s of arr(ss.spans)) {
        const status = (s.status ?? {}) as Plain;
        out.push({
          traceId: hexId(s.traceId, json),
          spanId: hexId(s.spanId, json),
          parentSpanId: hexId(s.parentSpanId, json),
          name: String(s.name ?? ''),
          kind: Number(s.kind ?? 0),
          attributes: attributes(s.attributes),
          status: { code: Number(status.code ?? 0), message: String(status.message ?? '') },
          resource,
        });
      }
    }
  }
  return out;
}

export async function startCollector(): Promise<Collector> {
  const spans: CollectedSpan[] = [];
  const contentTypes: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = String(req.headers['content-type'] ?? '');
      contentTypes.push(type);
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const json = type.startsWith('application/json');
      try {
        const message = json
          ? (JSON.parse(body.toString('utf8')) as Plain)
          : (ExportRequest.toObject(ExportRequest.decode(body), { longs: String, bytes: String, defaults: false }) as Plain);
        spans.push(...spansOf(message, json));
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
        return;
      }
      if (json) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
