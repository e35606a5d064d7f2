/** Builds the running providers from the config: one per configured provider, by its kind. */
import type { Config, ProviderConfig } from '../config/types.js';
import { rotatingProvider } from './credentials/rotating-provider.js';
import type { CooldownPeers } from './credentials/rotation.js';
import type { HttpProviderDeps } from './http.js';
import { providerKind } from './kinds.js';
import type { Provider } from './types.js';

export interface ProviderDeps {
  /** Per provider id; tests inject undici MockAgents or failing dispatchers. */
  readonly http?: Readonly<Record<string, HttpProviderDeps>>;
  /** Credential cool-downs shared with the gateways of one Redis (`state.redis`). */
  readonly cooldowns?: CooldownPeers;
}

export function createProviders(config: Config, deps: ProviderDeps = {}): Map<string, Provider> {
  const out = new Map<string, Provider>();
  for (const [id, provider] of config.providers) {
    const create = (c: ProviderConfig) => providerKind(c.type).create(c, deps.http?.[id]);
    out.set(id, provider.credentials.length > 0 ? rotatingProvider(provider, create, deps.cooldowns) : create(provider));
  }
  return out;
}
