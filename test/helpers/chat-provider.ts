/** An HTTP provider for a Chat upstream at `origin`, and one call to it, for the provider's own tests. */
import { DEFAULT_TIMEOUTS } from '../../src/config/schema.js';
import type { ProviderConfig } from '../../src/config/types.js';
import { CallAbort } from '../../src/providers/abort.js';
import { providerKind } from '../../src/providers/kinds.js';
import type { Provider, UpstreamResponse } from '../../src/providers/types.js';

export function chatProvider(origin: string, timeouts: Partial<ProviderConfig['timeouts']> = {}): Provider {
  return providerKind('openai').create({
    id: 'p',
    type: 'openai',
    baseUrl: `${origin}/v1`,
    apiKey: 'sk-upstream',
    headers: {},
    protocols: new Set(['chat']),
    timeouts: { ...DEFAULT_TIMEOUTS, ...timeouts },
    retries: 0,
    own: {},
    secrets: [],
    credentials: [],
  }, undefined);
}

/** A create call whose `x-route` header tells the test upstream how to answer. */
export function sendChat(p: Provider, route: string, { abort = new CallAbort(), stream = false } = {}): Promise<UpstreamResponse> {
  const json = { model: 'm', stream, messages: [] };
  return p.send({
    protocol: 'chat',
    operation: 'create',
    headers: { 'content-type': 'application/json', 'x-route': route },
    body: Buffer.from(JSON.stringify(json)),
    json,
    stream,
    abort,
    get signal() {
      return abort.signal;
    },
  });
}
