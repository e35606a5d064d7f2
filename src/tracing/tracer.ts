/**
 * The OpenTelemetry side of tracing, loaded with `import()` only when tracing is on, so a gateway
 * that does not trace never loads the packages. One span per request (kind server, a child of the
 * caller's `traceparent` when it sends one) and one per upstream attempt (kind client, whose
 * `traceparent` goes upstream), exported in batches over OTLP/HTTP.
 */
import type { IncomingMessage } from 'node:http';
import type { TracingSettings } from './settings.js';
import type { Tracer } from './types.js';
import { requestTrace, type TraceKit } from './request-trace.js';

export async function startTracer(settings: TracingSettings, version: string): Promise<Tracer> {
  const [api, core, sdk, resources, exporterModule] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    settings.protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  // A collector that does not answer holds up serve's stop no longer than this.
  const exporter = new exporterModule.OTLPTraceExporter({ url: settings.url, headers: { ...settings.headers }, timeoutMillis: 10_000 });
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': version }),
    sampler: new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(settings.sampleRatio) }),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  const propagator = new core.W3CTraceContextPropagator();
  const kit: TraceKit = {
    api,
    tracer: provider.getTracer('model-gateway', version),
    propagator,
    captureContent: settings.captureContent,
  };
  return {
    begin(req: IncomingMessage) {
      const parent = propagator.extract(api.ROOT_CONTEXT, req.headers, api.defaultTextMapGetter);
      return requestTrace(kit, req, parent);
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}
