/**
 * The written config file's shape (zod 4): the single source of `WrittenConfig` and of
 * `schema/gateway.schema.json`. Every field carries a description because editors show
 * them. Defaults that do not depend on other fields live here so the JSON Schema shows
 * them; a provider kind's own (its base URL and protocols) are in its folder, `providers/<type>/`.
 */
import { z } from './zod.js';
import { FEATURES, PROTOCOLS } from '../protocols/types.js';
import { PROVIDER_KINDS } from '../providers/kinds.js';
import { isRedisUrl } from '../state/redis-url.js';
import { isWellFormedKey } from './keys.js';
import { type KindFields, providerEntry } from './provider-fields.js';
import { DEFAULT_HOST, DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT, DEFAULT_SERVER_LIMITS, DEFAULT_STATE } from './defaults.js';

export { DEFAULT_HOST, DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT, DEFAULT_RETRIES, DEFAULT_SERVER_LIMITS, DEFAULT_STATE, DEFAULT_TIMEOUTS } from './defaults.js';

const protocol = z.enum(PROTOCOLS);
const feature = z.enum(FEATURES);

const positiveInt = () => z.int().positive();

/** Whether this runtime knows `name` as an IANA time zone. */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const usdPerMillion = () => z.number().min(0).max(1_000_000);

const price = z
  .strictObject({
    input: usdPerMillion().describe('USD per million input tokens (not read from or written to the cache).'),
    output: usdPerMillion().describe('USD per million output tokens, reasoning tokens included.'),
    cacheRead: usdPerMillion().optional().describe('USD per million input tokens read from the prompt cache. Default: the input price.'),
    cacheWrite: usdPerMillion().optional().describe('USD per million input tokens written to the prompt cache. Default: the input price.'),
  })
  .describe("The model's price, in USD per million tokens; overrides the shipped price catalogue.");

const budgetLine = z
  .strictObject({
    usd: z.number().positive().max(1e12).describe('Most US dollars spent per period.'),
    per: z
      .enum(['day', 'week', 'month', 'session'])
      .describe(
        'The calendar period, in server.timeZone: a day from midnight, a week from Monday, a month from its first; or "session": each client session apart (Claude Code\'s x-claude-code-session-id, Codex\'s session-id), its spend forgotten after a day without requests. A request without a session id is not limited by a per-session budget.',
      ),
  })
  .describe('A spending budget: at most `usd` per calendar day, week or month, or per session.');

const budget = z
  .union([budgetLine, z.array(budgetLine).min(1)])
  .describe(
    'A budget, or a list of them (say a daily and a monthly one). A request that would start past one is answered 429 naming the budget and when it resets; each request reserves its largest possible cost while it runs.',
  );

const server = z
  .strictObject({
    host: z.string().min(1).default(DEFAULT_HOST).describe('Interface to listen on. Use 0.0.0.0 to listen on all interfaces.'),
    port: z.int().min(0).max(65535).default(DEFAULT_PORT).describe('TCP port to listen on; 0 picks a free port.'),
    maxBodyBytes: positiveInt()
      .default(DEFAULT_MAX_BODY_BYTES)
      .describe('Largest accepted request body, in bytes (default 32 MiB).'),
    maxConcurrentRequests: positiveInt()
      .default(DEFAULT_SERVER_LIMITS.maxConcurrentRequests)
      .describe('Most model requests served at once; more are answered 503 with retry-after (default 1024).'),
    maxBufferedBytes: positiveInt()
      .default(DEFAULT_SERVER_LIMITS.maxBufferedBytes)
      .describe(
        'Most bytes held in memory at once across all requests: request bodies, and upstream answers read whole; a request whose body or answer would pass it is answered 503 (default 512 MiB).',
      ),
    headersTimeoutMs: positiveInt()
      .default(DEFAULT_SERVER_LIMITS.headersTimeoutMs)
      .describe(
        'Longest a client may take to send its request headers, in milliseconds (default 30 s); a new connection must send its first request headers within this time of connecting.',
      ),
    requestTimeoutMs: positiveInt()
      .default(DEFAULT_SERVER_LIMITS.requestTimeoutMs)
      .describe(
        'Longest a client may take to send its whole request (headers and body), in milliseconds (default 5 minutes). Responses are not limited by it.',
      ),
    keepAliveTimeoutMs: positiveInt()
      .default(DEFAULT_SERVER_LIMITS.keepAliveTimeoutMs)
      .describe('How long an idle keep-alive connection is kept open for its next request, in milliseconds (default 65 s).'),
    maxConnections: positiveInt()
      .optional()
      .describe(
        'Most client connections open at once; past it the longest-idle connection is closed first, and a new one is refused when none is idle. Default: (the open-file limit - 64) / 2, at most 16384 (1024 where the limit cannot be read), leaving room for the upstream connections.',
      ),
    maxResponseBytes: positiveInt()
      .default(DEFAULT_SERVER_LIMITS.maxResponseBytes)
      .describe(
        'Largest upstream answer held in memory: a whole non-streamed answer, or one event of a stream, in bytes (default 64 MiB). A larger one fails the call with a 502 in the caller\'s shape.',
      ),
    responsesStoreBytes: z
      .int()
      .min(0)
      .default(DEFAULT_SERVER_LIMITS.responsesStoreBytes)
      .describe(
        'Most bytes (as JSON) of translated Responses answers kept in memory, across all key groups, so that callers may refer to them later (`previous_response_id`, `item_reference`) on routes whose provider keeps nothing; the least recently used go first (default 64 MiB; 0 keeps none).',
      ),
    responsesStoreTtlMs: positiveInt()
      .default(DEFAULT_SERVER_LIMITS.responsesStoreTtlMs)
      .describe('How long a kept translated Responses answer can be referred to, in milliseconds after it was sent (default 24 hours).'),
    dataDir: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Folder for the files the gateway keeps between runs (its install secret, the usage ledger). Default: $MODEL_GATEWAY_DATA_DIR, else the per-user data folder ($XDG_DATA_HOME/model-gateway or ~/.local/share/model-gateway; ~/Library/Application Support/model-gateway on macOS; %LOCALAPPDATA%\\model-gateway on Windows). Read at start.',
      ),
    ledger: z
      .boolean()
      .default(true)
      .describe(
        'Keep the usage ledger: one JSON line per finished model request (key group, key, model, provider, tokens, cost; never bodies or keys) in <dataDir>/usage/YYYY-MM.jsonl, read by `model-gateway usage` and to restore budget spend at start. false: none is written, and budgets count from the start of this run.',
      ),
    timeZone: z
      .string()
      .min(1)
      .refine(isTimeZone, 'not a time zone this runtime knows (an IANA name such as "Europe/Paris" or "UTC")')
      .optional()
      .describe('The IANA time zone of the calendar periods of budgets (a day starts at its midnight). Default: the machine\'s.'),
    allowedHosts: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Host names accepted in the Host header besides localhost, *.localhost and loopback addresses, when listening on a loopback address (a guard against DNS rebinding); also the host names of web pages (the Origin header) accepted besides the gateway\'s own. Any port. Default: none.',
      ),
    authFailuresPerMinute: positiveInt()
      .default(DEFAULT_SERVER_LIMITS.authFailuresPerMinute)
      .describe(
        'Most requests with a missing or wrong key one client address (IPv6: one /64) may send per minute; past it the address is answered 429 with retry-after, its keys unchecked, until the minute is over (default 30).',
      ),
    maxTools: positiveInt()
      .default(DEFAULT_SERVER_LIMITS.maxTools)
      .describe('Most tools one request may declare; more are answered 400 (default 1024).'),
    maxMessages: positiveInt()
      .default(DEFAULT_SERVER_LIMITS.maxMessages)
      .describe('Most messages (or input items) in one request; more are answered 400 (default 100000).'),
    maxContentBlocks: positiveInt()
      .default(DEFAULT_SERVER_LIMITS.maxContentBlocks)
      .describe('Most content blocks (text, image, tool result and other parts) in one request, all messages together; more are answered 400 (default 100000).'),
  })
  .describe('Where the gateway listens, and the limits that protect it.');

// One entry per registered provider kind (providers/kinds.ts), told apart by `type`.
const provider = z
  .discriminatedUnion(
    'type',
    PROVIDER_KINDS.map((kind) => providerEntry(kind)) as unknown as ProviderEntries<typeof PROVIDER_KINDS>,
  )
  .describe('An upstream: where requests go and how they are authenticated. `type` says which kind, and so which other fields it takes.');

/** The entries' types, one per kind, as the tuple `z.discriminatedUnion` wants. */
type ProviderEntries<Kinds extends readonly { type: string; fields: z.ZodRawShape }[]> = {
  -readonly [I in keyof Kinds]: z.ZodObject<KindFields<Kinds[I]['type'], Kinds[I]['fields']>, z.core.$strict>;
};

const model = z
  .strictObject({
    provider: z.string().describe('Id of the provider (a key of "providers") that serves this model.'),
    upstreamModel: z
      .string()
      .min(1)
      .optional()
      .describe('Model name sent upstream. Default: the name the client asked for.'),
    protocols: z
      .array(protocol)
      .min(1)
      .default([...PROTOCOLS])
      .describe('Inbound protocols clients may use for this model. Default: all.'),
    features: z
      .array(feature)
      .default([...FEATURES])
      .describe('Request features this model accepts (tools, images, streaming, reasoning). Default: all.'),
    description: z.string().optional().describe('Free text, shown by `check` and the models endpoint.'),
    maxOutputTokens: positiveInt().optional().describe('Largest output token count the model supports.'),
    displayName: z
      .string()
      .min(1)
      .optional()
      .describe("Name shown for the model by clients that list models (Claude Code's model picker). Default: the model's name."),
    contextWindow: positiveInt()
      .optional()
      .describe('Largest input token count the model accepts (its context window), listed by the models endpoint.'),
    price: price.optional(),
    thinking: z
      .enum(['adaptive', 'enabled'])
      .optional()
      .describe(
        'How translated requests ask this Anthropic model to think: "adaptive" (`thinking: {type: "adaptive"}` with `output_config.effort`) or "enabled" (`thinking.budget_tokens`). Default: from the model name, adaptive for Claude 4.6 and later, enabled before.',
      ),
    countTokens: z
      .enum(['estimate', 'off'])
      .default('estimate')
      .describe(
        "How `count_tokens` is answered when the model's provider speaks neither Messages nor has its own counter: \"estimate\" counts locally; \"off\" answers 404, so that Claude Code estimates itself.",
      ),
    fallbacks: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'Models to try, in order, when this one fails after its retries (unreachable, timeout, 408/409/429/5xx/529, or the provider refused its credential). Only models the caller\'s key group may use are tried.',
      ),
  })
  .describe('A model (or, for a glob key, a family of models) and where it is served.');

const inspector = z
  .strictObject({
    keep: positiveInt().default(300).describe('Exchanges the inspector keeps in memory, newest first (default 300); `--inspector-keep` overrides it.'),
    memoryMiB: positiveInt()
      .default(64)
      .describe(
        'Memory the kept exchanges\' bodies may use, in MiB (default 64); past it the oldest lose their bodies first and keep their row. `--inspector-memory` overrides it.',
      ),
    history: z
      .boolean()
      .default(true)
      .describe(
        'Keep the recent past while no inspector page is open, so a page opened later shows it (default true; false: exchanges are captured and kept only while a page is open). `--inspector-history` / `--no-inspector-history` override it.',
      ),
    bodiesPerSecond: z
      .int()
      .min(0)
      .default(5)
      .describe(
        'With history, how many requests a second are kept whole (bodies and headers) while no page is open (default 5), in bursts of up to 20 (or a second\'s worth, when more); the others keep their row. 0 keeps rows only. With a page open, every exchange is kept whole.',
      ),
  })
  .describe('The traffic inspector at /_inspector (off with `serve --no-inspector`).');

const keyText = z
  .string()
  .min(1, 'key must not be empty')
  .refine(isWellFormedKey, 'a "sha256:" key must be followed by exactly 64 hex digits')
  .describe('A plain key (stored only as its sha256 digest) or "sha256:<64 hex digits>".');

const key = z
  .union([
    keyText,
    z
      .strictObject({
        name: z.string().min(1).optional().describe('A label for logs.'),
        key: keyText,
        budget: budget.optional(),
      })
      .describe('A key with a label, and optionally a budget of its own.'),
  ])
  .describe('A client key.');

const keyGroup = z
  .strictObject({
    keys: z.array(key).describe('Keys clients send (Authorization: Bearer or x-api-key).'),
    models: z
      .array(z.string())
      .min(1)
      .default(['*'])
      .describe('Model names or globs (* and ?) this group may use. Default: ["*"].'),
    protocols: z
      .array(protocol)
      .min(1)
      .default([...PROTOCOLS])
      .describe('Inbound protocols this group may use. Default: all.'),
    features: z
      .array(feature)
      .default([...FEATURES])
      .describe('Request features this group may use. Default: all.'),
    limits: z
      .strictObject({
        requestsPerMinute: positiveInt().optional().describe('Most requests per minute for the whole group (bursts up to this many).'),
        concurrentRequests: positiveInt().optional().describe('Most requests in progress at once for the whole group.'),
        tokensPerMinute: positiveInt()
          .optional()
          .describe('Most tokens (input + output, as reported by the provider) per rolling minute for the whole group.'),
      })
      .optional()
      .describe('Limits shared by all keys of the group; over a limit is 429 with retry-after.'),
    maxOutputTokens: positiveInt()
      .optional()
      .describe(
        'Most output tokens a request of this group may ask for (max_tokens, max_output_tokens, max_completion_tokens); a request asking more is answered 403, a Chat or Responses request that names none is sent with this cap. count_tokens is not capped.',
      ),
    maxChoices: positiveInt()
      .optional()
      .describe('Most choices (Chat Completions `n`) a request of this group may ask for; more is answered 403.'),
    inspect: z
      .boolean()
      .default(false)
      .describe('Keys of this group may sign in to the inspector page with their key (default false).'),
    budget: budget.optional(),
  })
  .describe('Client keys sharing one set of permissions.');

/** Labels a request's metrics may carry besides the fixed ones, each bounded by the config (see src/metrics/labels.ts). */
export const METRIC_LABELS = ['keyGroup', 'key', 'model'] as const;

const metrics = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Whether metrics are collected and served (default true once the section is written).'),
    port: z
      .int()
      .min(0)
      .max(65535)
      .optional()
      .describe(
        'Serve `GET /metrics` on a listener of its own on this port (0 picks a free one). Default: none, metrics are served at `/metrics` on the gateway\'s port behind `token`.',
      ),
    host: z
      .string()
      .min(1)
      .default(DEFAULT_HOST)
      .describe('Interface the metrics listener binds to, with `port` (default 127.0.0.1: this machine only).'),
    token: z
      .string()
      .min(16, 'a metrics token must be at least 16 characters')
      .optional()
      .describe(
        'Bearer token a scraper must send (`Authorization: Bearer <token>`). Required when metrics are served on the gateway\'s port (no `port`); checked on the metrics listener too when given.',
      ),
    labels: z
      .array(z.enum(METRIC_LABELS))
      .default([])
      .refine((l) => new Set(l).size === l.length, 'a label is listed twice')
      .describe(
        'Labels added to the per-request metrics besides the fixed ones: "keyGroup" (the key group), "key" (the key\'s name, else its id), "model" (the model names as requested and sent, rather than the config entry that matched them). Default: none. Sessions are never labels.',
      ),
  })
  .describe('Prometheus metrics (`GET /metrics`). Off unless this section is written (or `serve --metrics-port`). Read at start.');

const tracing = z
  .strictObject({
    otlpEndpoint: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The OTLP/HTTP collector\'s base URL; spans go to `<otlpEndpoint>/v1/traces`. Default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the full URL), else $OTEL_EXPORTER_OTLP_ENDPOINT, else http://127.0.0.1:4318.',
      ),
    protocol: z
      .enum(['http/protobuf', 'http/json'])
      .optional()
      .describe('How spans are encoded. Default: $OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or $OTEL_EXPORTER_OTLP_PROTOCOL, else "http/protobuf".'),
    headers: z
      .record(z.string(), z.string())
      .default({})
      .describe('Headers sent to the collector (an API key), over $OTEL_EXPORTER_OTLP_HEADERS. Never logged.'),
    captureContent: z
      .boolean()
      .default(false)
      .describe('Put the prompt and the completion on the request\'s span, cut to a few KiB each (default false: only counts and names).'),
    sampleRatio: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('Share of requests traced (0 to 1), unless the caller\'s `traceparent` decides. Default: $OTEL_TRACES_SAMPLER_ARG for a ratio sampler, else 1.'),
  })
  .describe('OpenTelemetry traces over OTLP/HTTP. Off unless this section is written or $OTEL_EXPORTER_OTLP_ENDPOINT / $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set. Read at start.');

const state = z
  .strictObject({
    redis: z
      .string()
      // The message does not repeat the value: it may hold a password.
      .refine(isRedisUrl, 'must be a redis:// or rediss:// (TLS) URL with a host and no query, such as redis://redis.internal:6379/0')
      .describe('The Redis that several gateways share, as a redis:// or rediss:// (TLS) URL; a password in it is never shown. Usually "${REDIS_URL}".'),
    keyPrefix: z
      .string()
      .min(1)
      .default(DEFAULT_STATE.keyPrefix)
      .describe('Prefix of every key the gateway writes in Redis, so that several teams or gateways can share one Redis apart (default "model-gateway:").'),
    onRedisDown: z
      .strictObject({
        limits: z
          .enum(['open', 'closed'])
          .default(DEFAULT_STATE.onRedisDown.limits)
          .describe(
            'Key-group limits while Redis cannot be reached: "open" serves, counting in this process\'s memory until Redis is back; "closed" answers 503 to the requests of groups with limits (default "open").',
          ),
        budgets: z
          .enum(['open', 'closed'])
          .default(DEFAULT_STATE.onRedisDown.budgets)
          .describe(
            'Budgets while Redis cannot be reached: "open" serves, counting spend in this process\'s memory until Redis is back (from the ledger\'s spend at start); "closed" answers 503 to the requests that answer to a budget (default "closed").',
          ),
      })
      .prefault({})
      .describe('What the gateway does while Redis cannot be reached. The outage and its end are logged once each.'),
    commandTimeoutMs: positiveInt()
      .default(DEFAULT_STATE.commandTimeoutMs)
      .describe(
        'Longest the gateway waits for an answer from Redis, in milliseconds, before it treats Redis as down (default 500): a stalled Redis cannot hold requests longer than this.',
      ),
  })
  .describe('What several gateways behind one load balancer share, kept in Redis: key-group limits, budget spend and reservations, the wrong-key throttle and credential cool-downs.');

export const writtenConfigSchema = z
  .strictObject({
    $schema: z.string().optional().describe('Path or URL of this JSON Schema, for editors.'),
    server: server.prefault({}),
    inspector: inspector.prefault({}),
    providers: z.record(z.string(), provider).describe('Upstreams, by id.'),
    models: z
      .record(z.string(), model)
      .describe(
        'Models by exact name or glob (* any run of characters, ? one character). Exact names win; among globs the one with more literal characters.',
      ),
    keyGroups: z
      .record(z.string(), keyGroup)
      .default({})
      .describe('Client key groups, by name. A request must carry a key from one of them.'),
    metrics: metrics.optional(),
    tracing: tracing.optional(),
    state: state.optional(),
  })
  .describe(
    'model-gateway configuration. Any string value may reference an environment variable as ${NAME} ($${NAME} for a literal ${NAME}).',
  );

/** The config as a user writes it (defaults optional). */
export type WrittenConfig = z.input<typeof writtenConfigSchema>;
/** The config after schema validation: static defaults applied, env references resolved. */
export type ValidatedConfig = z.output<typeof writtenConfigSchema>;
