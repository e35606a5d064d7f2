/**
 * Real client requests (test/fixtures/clients) sent through the gateway
 * with their own headers: the provider must receive the body byte for byte,
 * apart from the model name.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY, startGateway, testConfig, type TestGateway } from '../helpers/start-gateway.js';

interface Fixture {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

const load = (name: string): Fixture =>
  JSON.parse(readFileSync(new URL(`../fixtures/clients/${name}`, import.meta.url), 'utf8')) as Fixture;

/** The fixture's headers with our key in place of the redacted one, minus what the HTTP client sets itself. */
function clientHeaders(f: Fixture): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(f.headers)) {
    const lower = name.toLowerCase();
    if (['host', 'content-length', 'connection', 'accept-encoding'].includes(lower)) continue;
    if (lower === 'x-api-key') out[lower] = GATEWAY_KEY;
    else if (lower === 'authorization') out[lower] = `Bearer ${GATEWAY_KEY}`;
    else out[lower] = value;
  }
  return out;
}

let upstream: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  const base = testConfig(upstream.url);
  gw = await startGateway({
    ...base,
    models: {
      ...base.models,
      'claude-opus-5-5': { provider: 'anthropic', upstreamModel: 'claude-opus-5-5-20261101' },
      'gpt-5-codex': { provider: 'openai', upstreamModel: 'gpt-5.1-codex' },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

describe.each([
  ['claude-code-2.1.330-messages-first-turn.json', 'claude-opus-5-5-20261101', '/v1/messages'],
  ['claude-code-2.1.330-messages-tool-result.json', 'claude-opus-5-5-20261101', '/v1/messages'],
  ['claude-code-2.1.330-count-tokens.json', 'claude-opus-5-5-20261101', '/v1/messages/count_tokens'],
  ['codex-0.169.0-responses-first-turn.json', 'gpt-5.1-codex', '/v1/responses'],
  ['codex-0.169.0-responses-function-call-output.json', 'gpt-5.1-codex', '/v1/responses'],
])('%s', (file, upstreamModel, upstreamPath) => {
  it('arrives upstream byte for byte, apart from the model', async () => {
    const fixture = load(file);
    const sent = JSON.stringify(fixture.body);
    const res = await call(`${gw.url}${fixture.path}`, { method: fixture.method, headers: clientHeaders(fixture), body: sent });
    expect(res.status).toBe(200);

    const got = upstream.last();
    expect(got.url).toBe(upstreamPath);
    const model = JSON.stringify(fixture.body.model);
    expect(got.body.toString('utf8')).toBe(sent.replace(`"model":${model}`, `"model":${JSON.stringify(upstreamModel)}`));
    // Betas and version reach Anthropic as sent; nothing identifying the caller's key does.
    for (const name of ['anthropic-beta', 'anthropic-version', 'user-agent']) {
      const value = Object.entries(fixture.headers).find(([k]) => k.toLowerCase() === name)?.[1];
      expect(got.headers[name]).toBe(value);
    }
    expect(JSON.stringify(got.headers)).not.toContain(GATEWAY_KEY);
    expect(got.headers['x-claude-code-session-id']).toBeUndefined();
  });
});
