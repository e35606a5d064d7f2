/** Builds the running providers from the config: one per configured provider, by type. */
import type { Config } from '../config/types.js';
import { createEchoProvider } from './echo/provider.js';
import { createHttpProvider, type HttpProviderDeps } from './http.js';
import type { Provider } from './types.js';

export interface ProviderDeps {
  /** Per provider id; tests inject undici MockAgents or failing dispatchers. */
  readonly http?: Readonly<Record<string, HttpProviderDeps>>;
}

export function createProviders(config: Config, deps: ProviderDeps = {}): Map<string, Provider> {
  const out = new Map<string, Provider>();
  for (const [id, provider] of config.providers) {
    out.set(id, provider.type === 'echo' ? createEchoProvider(provider) : createHttpProvider(provider, deps.http?.[id]));
  }
  return out;
}
