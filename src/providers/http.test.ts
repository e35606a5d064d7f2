import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../../test/helpers/fake-upstream.js';
import { DEFAULT_TIMEOUTS } from '../config/schema.js';
import type { ProviderConfig, ProviderType } from '../config/types.js';
import { CallAbort } from './abort.js';
import { providerKind } from './kinds.js';

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

function provider(type: ProviderType, apiKey: string | undefined, headers: Record<string, string>) {
  const config: ProviderConfig = {
    id: 'p',
    type,
    baseUrl: type === 'anthropic' ? upstream.url : `${upstream.url}/v1`,
    apiKey,
    headers,
    protocols: new Set([type === 'anthropic' ? 'messages' : 'chat']),
    timeouts: DEFAULT_TIMEOUTS,
    retries: 0,
    own: {},
    secrets: [],
    credentials: [],
  };
  return providerKind(type).create(config, undefined);
}

/** Sends `clientHeaders` (as upstreamHeaders would have filtered them) and returns the headers the upstream got, raw. */
async function sentHeaders(type: ProviderType, apiKey: string | undefined, configHeaders: Record<string, string>, clientHeaders: Record<string, string>) {
  const p = provider(type, apiKey, configHeaders);
  try {
    const json = { model: 'm', messages: [] };
    const res = await p.send({
      protocol: type === 'anthropic' ? 'messages' : 'chat',
      operation: 'create',
      headers: { 'content-type': 'application/json', ...clientHeaders },
      body: Buffer.from(JSON.stringify(json)),
      json,
      abort: new CallAbort(),
      get signal() {
        return new AbortController().signal;
      },
    });
    res.body.resume();
    const { headers: got, rawHeaders } = upstream.last();
    const count = (name: string) => rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === name).length;
    return { got, count };
  } finally {
    await p.close();
  }
}

describe('HTTP provider headers', () => {
  it.each([
    {
      name: 'the credential goes as the provider type wants it',
      type: 'openai' as const,
      apiKey: 'sk-upstream',
      config: {},
      client: { 'user-agent': 'client/1' },
      expected: { authorization: 'Bearer sk-upstream', 'user-agent': 'client/1' },
    },
    {
      name: 'an Anthropic credential goes in x-api-key',
      type: 'anthropic' as const,
      apiKey: 'sk-ant-upstream',
      config: {},
      client: { 'anthropic-version': '2023-06-01' },
      expected: { 'x-api-key': 'sk-ant-upstream', 'anthropic-version': '2023-06-01' },
    },
    {
      name: 'a config header replaces the client header of that name, whatever its case',
      type: 'openai' as const,
      apiKey: 'sk-upstream',
      config: { 'User-Agent': 'team-proxy/2', 'X-Team': 'core' },
      client: { 'user-agent': 'client/1' },
      expected: { 'user-agent': 'team-proxy/2', 'x-team': 'core', authorization: 'Bearer sk-upstream' },
    },
    {
      name: 'the credential replaces a config header of the same name',
      type: 'openai' as const,
      apiKey: 'sk-upstream',
      config: { Authorization: 'Bearer stale' },
      client: {},
      expected: { authorization: 'Bearer sk-upstream' },
    },
    {
      name: 'no credential configured: none is sent',
      type: 'openai-compatible' as const,
      apiKey: undefined,
      config: {},
      client: { accept: 'application/json' },
      expected: { accept: 'application/json', authorization: undefined },
    },
  ])('$name', async ({ type, apiKey, config, client, expected }) => {
    const { got, count } = await sentHeaders(type, apiKey, config, client);
    for (const [name, value] of Object.entries(expected)) {
      expect(got[name], name).toBe(value);
      if (value !== undefined) expect(count(name), `${name} sent once`).toBe(1);
    }
  });
});
