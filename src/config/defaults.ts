/**
 * The settings' defaults, apart from the schema so that code running without a parsed config
 * (a provider called directly, a probe) can read them without importing the whole schema, which
 * is built from the provider kinds and so would import that code back.
 */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
export const DEFAULT_TIMEOUTS = { connectMs: 10_000, headersMs: 600_000, idleMs: 300_000, totalMs: 1_800_000 } as const;
export const DEFAULT_RETRIES = 2;
export const DEFAULT_SERVER_LIMITS = {
  maxConcurrentRequests: 1024,
  maxBufferedBytes: 512 * 1024 * 1024,
  headersTimeoutMs: 30_000,
  requestTimeoutMs: 300_000,
  keepAliveTimeoutMs: 65_000,
  maxResponseBytes: 64 * 1024 * 1024,
  responsesStoreBytes: 64 * 1024 * 1024,
  responsesStoreTtlMs: 24 * 60 * 60 * 1000,
  authFailuresPerMinute: 30,
  maxTools: 1024,
  maxMessages: 100_000,
  maxContentBlocks: 100_000,
} as const;
export const DEFAULT_STATE = {
  keyPrefix: 'model-gateway:',
  // Limits open (a few requests too many while Redis is down), budgets closed (spend is money).
  onRedisDown: { limits: 'open', budgets: 'closed' },
  // Redis answers in well under a millisecond on a LAN; half a second is a stall, not a slow answer.
  commandTimeoutMs: 500,
} as const;
