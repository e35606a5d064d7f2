/**
 * The normalised configuration: defaults applied, `${ENV}` references resolved,
 * keys reduced to sha256 digests, models indexed. Code outside `config/` sees only this.
 * The written (user-facing) shape is `WrittenConfig`, inferred from `schema.ts`.
 */
import type { Feature, Protocol } from '../protocols/types.js';

/**
 * A provider's `type`: the name of a kind registered in `providers/kinds.ts` (which also gives
 * the names as a union, `ProviderType` there). A plain string here, as the kinds import this file.
 */
export type ProviderType = string;

export interface Timeouts {
  /** TCP/TLS connect. */
  readonly connectMs: number;
  /** From request sent to response headers received. */
  readonly headersMs: number;
  /** Longest silence between two body chunks (streams included). */
  readonly idleMs: number;
  /** Longest a whole upstream call may take, retries and stream included. */
  readonly totalMs: number;
}

export interface ProviderConfig {
  readonly id: string;
  readonly type: ProviderType;
  /** Absolute base URL without a trailing slash, e.g. `https://api.openai.com/v1`. Empty for a kind with none (`echo`). */
  readonly baseUrl: string;
  /** The provider credential, already resolved from the environment. Never logged. */
  readonly apiKey: string | undefined;
  /** Extra static headers sent upstream. */
  readonly headers: Readonly<Record<string, string>>;
  /** Protocols the provider speaks natively. */
  readonly protocols: ReadonlySet<Protocol>;
  readonly timeouts: Timeouts;
  /** Extra attempts on retryable failures before any byte reached the client. */
  readonly retries: number;
  /**
   * The kind's own fields as written (`region`, `deployment`…), `${ENV}` already resolved; the
   * kind's module reads them (see `providers/<type>/kind.ts`).
   */
  readonly own: Readonly<Record<string, unknown>>;
  /** Credentials besides `apiKey` (a client secret, a Bedrock API key…): cut out of upstream error text like it, never logged. */
  readonly secrets: readonly string[];
  /** Several credentials taking turns (see providers/credentials); empty: the provider's own `apiKey` and fields. */
  readonly credentials: readonly CredentialConfig[];
}

/** One of a provider's several credentials. */
export interface CredentialConfig {
  /** Shown in the log, the inspector and `check`; never the secret. */
  readonly name: string;
  readonly apiKey: string | undefined;
  /** The kind's own credential fields (a profile, a credentials file), over the provider's. */
  readonly own: Readonly<Record<string, unknown>>;
  readonly weight: number;
  /** Lower goes first; a higher priority is used only when no better credential can take the call. */
  readonly priority: number;
  readonly limits: Pick<GroupLimits, 'requestsPerMinute' | 'tokensPerMinute'>;
}

/** `estimate`: a local estimate; `off`: 404, so that the client estimates itself. */
export type CountTokensMode = 'estimate' | 'off';

/** Anthropic's two ways of asking for thinking: `adaptive` (with an effort) or `enabled` (with a token budget). */
export type ThinkingStyle = 'adaptive' | 'enabled';

/** A model's price as the config gives it, in USD per million tokens (cache prices default to the input price). */
export interface ModelPriceConfig {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number | undefined;
  readonly cacheWrite?: number | undefined;
}

/** A calendar period a budget counts over, in `server.timeZone`. */
export type BudgetPeriod = 'day' | 'week' | 'month';

/** What a budget counts over: a calendar period, or each session apart (the client's session id). */
export type BudgetPer = BudgetPeriod | 'session';

/** At most `usd` spent per `per`. */
export interface Budget {
  readonly usd: number;
  readonly per: BudgetPer;
}

export interface ModelConfig {
  /** The key as written: an exact name or a glob (`claude-*`, `*`). */
  readonly pattern: string;
  readonly isGlob: boolean;
  readonly provider: string;
  /** Undefined means "send the requested name". */
  readonly upstreamModel: string | undefined;
  /** Inbound protocols allowed for this model. */
  readonly protocols: ReadonlySet<Protocol>;
  readonly features: ReadonlySet<Feature>;
  readonly description: string | undefined;
  readonly maxOutputTokens: number | undefined;
  /** Shown by the models endpoint instead of the name; undefined: the name. */
  readonly displayName: string | undefined;
  /** The model's context window, in input tokens, listed by the models endpoint. */
  readonly contextWindow: number | undefined;
  /** How `count_tokens` is answered when the provider has no counter of its own. */
  readonly countTokens: CountTokensMode;
  /** How translated requests to this Anthropic model ask for thinking; undefined: from the model name. */
  readonly thinking?: ThinkingStyle | undefined;
  /** Models tried in order when this one fails after its retries. */
  readonly fallbacks: readonly string[];
  /** The price from the config, over the catalogue's; undefined: the catalogue's, if it has one. */
  readonly price?: ModelPriceConfig | undefined;
}

export interface GatewayKey {
  /** sha256 of the key, lowercase hex. */
  readonly digest: string;
  /** A short, non-secret id for logs: the first 8 hex digits of the digest. */
  readonly id: string;
  /** Optional label from the config (`{ "name": "alice", "key": "..." }`). */
  readonly name: string | undefined;
  readonly group: string;
  /** The key's own budgets (besides its group's); absent or empty: none. */
  readonly budgets?: readonly Budget[] | undefined;
}

export interface KeyGroupConfig {
  readonly name: string;
  readonly keys: readonly GatewayKey[];
  /** Exact names or globs. */
  readonly models: readonly string[];
  readonly protocols: ReadonlySet<Protocol>;
  readonly features: ReadonlySet<Feature>;
  readonly limits: GroupLimits;
  /** Cap on the output tokens a request may ask for; undefined: none. */
  readonly maxOutputTokens: number | undefined;
  /** Cap on Chat Completions' `n`; undefined: none. */
  readonly maxChoices: number | undefined;
  /** Its keys may sign in to the inspector page. */
  readonly inspect: boolean;
  /** The group's budgets, shared by its keys; absent or empty: none. */
  readonly budgets?: readonly Budget[] | undefined;
}

export interface InspectorConfig {
  /** Exchanges kept in memory. */
  readonly keep: number;
  /** Memory their bodies may use, in MiB. */
  readonly memoryMiB: number;
  /** Kept while no page is open too. */
  readonly history: boolean;
  /** With history, requests a second kept whole while no page is open. */
  readonly bodiesPerSecond: number;
}

export interface GroupLimits {
  readonly requestsPerMinute?: number;
  readonly concurrentRequests?: number;
  readonly tokensPerMinute?: number;
}

export interface ServerConfig {
  readonly host: string;
  readonly port: number;
  /** Largest accepted request body in bytes (default 32 MiB). */
  readonly maxBodyBytes: number;
  readonly maxConcurrentRequests: number;
  readonly maxBufferedBytes: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** Undefined: derived from the process's open-file limit when listening. */
  readonly maxConnections: number | undefined;
  /** Largest whole non-streamed answer, or single stream event, held in memory. */
  readonly maxResponseBytes: number;
  /** Most bytes of translated Responses answers kept for later references (0: none). */
  readonly responsesStoreBytes: number;
  /** How long a kept answer can be referred to. */
  readonly responsesStoreTtlMs: number;
  /** Where the gateway keeps its own files; undefined: the default (storage/data-dir.ts). */
  readonly dataDir?: string | undefined;
  /** Whether finished model requests go to the usage ledger (`<dataDir>/usage/`); absent: true. */
  readonly ledger?: boolean | undefined;
  /** The IANA time zone of budgets' calendar periods; absent: the machine's. */
  readonly timeZone?: string | undefined;
  /** Host names accepted besides loopback ones when listening on loopback, lowercase. */
  readonly allowedHosts: readonly string[];
  readonly authFailuresPerMinute: number;
  readonly maxTools: number;
  readonly maxMessages: number;
  readonly maxContentBlocks: number;
}

/** A label a request's metrics may carry besides the fixed ones (see `metrics.labels`). */
export type MetricLabel = 'keyGroup' | 'key' | 'model';

/** Prometheus metrics, when on. */
export interface MetricsConfig {
  /** A listener of its own; undefined: `/metrics` on the gateway's port, behind `token`. */
  readonly port: number | undefined;
  readonly host: string;
  /** The scraper's Bearer token; required without `port`. Never logged. */
  readonly token: string | undefined;
  readonly labels: readonly MetricLabel[];
}

/** OpenTelemetry traces, as written; the `OTEL_*` variables fill in what is left out (see src/tracing). */
export interface TracingConfig {
  readonly otlpEndpoint: string | undefined;
  readonly protocol: 'http/protobuf' | 'http/json' | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly captureContent: boolean;
  readonly sampleRatio: number | undefined;
}

/** `open`: serve, with this process's own counters; `closed`: refuse (503). */
export type OnRedisDown = 'open' | 'closed';

/** What several gateways share through Redis (`state`). */
export interface StateConfig {
  /** A redis:// or rediss:// URL; may hold a password, so shown only through `state/redis-url.ts`. */
  readonly redis: string;
  readonly keyPrefix: string;
  readonly onRedisDown: { readonly limits: OnRedisDown; readonly budgets: OnRedisDown };
  readonly commandTimeoutMs: number;
}

export interface Config {
  readonly server: ServerConfig;
  readonly inspector: InspectorConfig;
  /** Undefined: metrics are off. */
  readonly metrics?: MetricsConfig | undefined;
  /** Undefined: no tracing section (the `OTEL_*` variables may still turn tracing on). */
  readonly tracing?: TracingConfig | undefined;
  readonly providers: ReadonlyMap<string, ProviderConfig>;
  /** Exact-name models, by name. */
  readonly models: ReadonlyMap<string, ModelConfig>;
  /** Glob models, most specific first (see `routing/resolve-model.ts`). */
  readonly modelGlobs: readonly ModelConfig[];
  readonly keyGroups: ReadonlyMap<string, KeyGroupConfig>;
  /** Every key by digest. */
  readonly keys: ReadonlyMap<string, GatewayKey>;
  /** Undefined: nothing is shared, every limit is this process's own. */
  readonly state?: StateConfig | undefined;
}

/** Where a loaded config came from, for the banner and `check`. */
export interface ConfigSource {
  /** Absolute file path, or undefined for the built-in default. */
  readonly filepath: string | undefined;
  readonly description: string;
  /** A key generated at start (default config only), to be shown once. */
  readonly generatedKey?: string;
}

export interface LoadedConfig {
  readonly config: Config;
  readonly source: ConfigSource;
}
