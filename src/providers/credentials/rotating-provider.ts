/**
 * A provider with several credentials: one provider of its kind per credential (each with that
 * credential's key and fields), behind one that sends each call with the credential `pick` chose
 * and tells the rotation what the upstream answered.
 */
import type { CredentialConfig, ProviderConfig } from '../../config/types.js';
import { retryAfterMs } from '../response-headers.js';
import type { Provider, UpstreamRequest, UpstreamResponse } from '../types.js';
import { type CooldownPeers, createRotation } from './rotation.js';

/** The provider as it is with one of its credentials: that credential's key and fields over its own. */
export const withCredential = (config: ProviderConfig, c: CredentialConfig): ProviderConfig => ({
  ...config,
  apiKey: c.apiKey,
  own: { ...config.own, ...c.own },
  credentials: [],
});

export function rotatingProvider(config: ProviderConfig, create: (config: ProviderConfig) => Provider, peers?: CooldownPeers): Provider {
  const rotation = createRotation(config.id, config.credentials, Date.now, peers);
  const byName = new Map(config.credentials.map((c) => [c.name, create(withCredential(config, c))]));
  const first = byName.values().next().value!;
  const providerOf = (req: UpstreamRequest): [string, Provider] => {
    const name = req.credential ?? rotation.pick(undefined).name;
    return [name, byName.get(name) ?? first];
  };
  return {
    id: config.id,
    config,
    pick: (affinity) => rotation.pick(affinity),
    standings: () => rotation.standings(),
    async send(req: UpstreamRequest): Promise<UpstreamResponse> {
      const [name, provider] = providerOf(req);
      const answer = await provider.send(req);
      rotation.observe(name, answer.status, retryAfterMs(answer.headers));
      return answer;
    },
    // Every credential's provider maps errors alike: they differ only in the credential.
    ...(first.toError ? { toError: first.toError.bind(first) } : {}),
    ...(first.transportError ? { transportError: first.transportError.bind(first) } : {}),
    async close() {
      rotation.close();
      await Promise.all([...byName.values()].map((p) => p.close()));
    },
  };
}
