/**
 * Whether requests are traced, and how: the config's `tracing` section over the standard
 * OpenTelemetry variables (`OTEL_EXPORTER_OTLP_*`, `OTEL_TRACES_*`, `OTEL_SDK_DISABLED`), so that a
 * gateway started where a collector is already configured for other services traces without
 * editing its config.
 */
import type { TracingConfig } from '../config/types.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracingSettings {
  /** The full URL spans are posted to (`…/v1/traces`). */
  readonly url: string;
  readonly protocol: OtlpProtocol;
  /** Sent to the collector with every export; never logged. */
  readonly headers: Readonly<Record<string, string>>;
  readonly captureContent: boolean;
  /** Share of root traces sampled; a caller's `traceparent` decides for its own. */
  readonly sampleRatio: number;
  readonly serviceName: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_ENDPOINT = 'http://127.0.0.1:4318';

const set = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v.trim());

const withTracesPath = (base: string): string => `${base.replace(/\/+$/, '')}/v1/traces`;

/** `key=value` pairs, comma-separated, values percent-encoded (the OTLP exporter's header variable format). */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    let value = pair.slice(at + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // Kept as written when it is not valid percent-encoding.
    }
    if (name !== '') out[name.toLowerCase()] = value;
  }
  return out;
}

/** The sample ratio the standard variables ask for, when their sampler is a ratio one. */
function envRatio(env: Env): number | undefined {
  const sampler = set(env.OTEL_TRACES_SAMPLER);
  if (sampler === 'always_off' || sampler === 'parentbased_always_off') return 0;
  if (sampler !== 'traceidratio' && sampler !== 'parentbased_traceidratio') return undefined;
  const ratio = Number(set(env.OTEL_TRACES_SAMPLER_ARG) ?? '1');
  return Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : undefined;
}

/** The settings, or undefined when tracing is off: no `tracing` section and no OTLP endpoint in the environment. */
export function tracingSettings(config: TracingConfig | undefined, env: Env): TracingSettings | undefined {
  if (set(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true' || set(env.OTEL_TRACES_EXPORTER) === 'none') return undefined;
  const tracesUrl = set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const baseUrl = set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (config === undefined && tracesUrl === undefined && baseUrl === undefined) return undefined;
  const url = config?.otlpEndpoint !== undefined ? withTracesPath(config.otlpEndpoint) : (tracesUrl ?? withTracesPath(baseUrl ?? DEFAULT_ENDPOINT));
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new Error(`The OTLP endpoint is not an http(s) URL: ${shownEndpoint(url)}`);
  const envProtocol = set(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? set(env.OTEL_EXPORTER_OTLP_PROTOCOL);
  const protocol: OtlpProtocol = config?.protocol ?? (envProtocol === 'http/json' ? 'http/json' : 'http/protobuf');
  return {
    url,
    protocol,
    headers: {
      ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
      ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
      ...config?.headers,
    },
    captureContent: config?.captureContent ?? false,
    sampleRatio: config?.sampleRatio ?? envRatio(env) ?? 1,
    serviceName: set(env.OTEL_SERVICE_NAME) ?? 'model-gateway',
  };
}

/** The endpoint as it may be shown: without a user, password or query, which may hold a secret. */
export function shownEndpoint(url: string): string {
  if (!URL.canParse(url)) return '(not a URL)';
  const u = new URL(url);
  u.username = '';
  u.password = '';
  u.search = '';
  return u.toString();
}
