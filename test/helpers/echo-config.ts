/** The echo provider's normalised config, for tests that drive the provider without a gateway. */
import type { ProviderConfig } from '#src/config/types.js';
import { PROTOCOLS } from '#src/protocols/types.js';

export const ECHO_PROVIDER: ProviderConfig = {
  id: 'echo',
  type: 'echo',
  baseUrl: '',
  apiKey: undefined,
  headers: {},
  protocols: new Set(PROTOCOLS),
  timeouts: { connectMs: 1000, headersMs: 1000, idleMs: 1000, totalMs: 1000 },
  retries: 0,
  own: {},
  secrets: [],
  credentials: [],
};
