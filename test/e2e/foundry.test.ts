/**
 * The foundry provider kind (Claude on Microsoft Foundry) through the real gateway: the Anthropic
 * SDK (Messages, passed through, and count_tokens) and the OpenAI SDK (Chat and Responses,
 * translated to Messages), streaming and not, against a fake that behaves as Foundry's Anthropic
 * endpoint does (fake-azure.ts). What reaches it: /anthropic/v1/messages, the key in x-api-key and
 * no Authorization (or a Microsoft Entra ID token issued for Foundry's scope, and no key),
 * anthropic-version, the Foundry deployment as the model.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { CANNED_TEXT } from '../helpers/canned.js';
import { COGNITIVE_SERVICES_SCOPE, ENTRA_APP, FOUNDRY_KEY, FOUNDRY_SCOPE, fakeEntra, fakeFoundry } from '../helpers/fake-azure.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';

let foundry: FakeUpstream;
let login: FakeUpstream;
const entra = fakeEntra();
let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  foundry = await startFakeUpstream();
  login = await startFakeUpstream();
  const config = {
    providers: {
      foundry: { type: 'foundry', baseUrl: `${foundry.url}/anthropic`, apiKey: '${ANTHROPIC_FOUNDRY_API_KEY}', retries: 0 },
      foundryEntra: {
        type: 'foundry',
        baseUrl: `${foundry.url}/anthropic`,
        tenantId: ENTRA_APP.tenantId,
        clientId: ENTRA_APP.clientId,
        clientSecret: '${AZURE_CLIENT_SECRET}',
        authorityHost: login.url,
        retries: 0,
      },
    },
    models: {
      'claude-sonnet': { provider: 'foundry', upstreamModel: 'my-claude-deployment' },
      'claude-entra': { provider: 'foundryEntra', upstreamModel: 'my-claude-deployment' },
    },
    keyGroups: { dev: { keys: [GATEWAY_KEY] } },
  } as WrittenConfig;
  gw = await startGateway(config, { env: { ANTHROPIC_FOUNDRY_API_KEY: FOUNDRY_KEY, AZURE_CLIENT_SECRET: ENTRA_APP.clientSecret } });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await foundry.close();
  await login.close();
});
beforeEach(() => {
  foundry.reset();
  foundry.always(fakeFoundry({ entra }));
  login.reset();
  login.always(entra.behaviour);
});

/** What reached the fake Foundry: the Messages path, the key in x-api-key only, the deployment as the model. */
function expectFoundryRequest(path = '/anthropic/v1/messages') {
  const got = foundry.last();
  expect(got.url).toBe(path);
  expect(got.headers['x-api-key']).toBe(FOUNDRY_KEY);
  expect(got.headers.authorization).toBeUndefined();
  expect(got.headers['api-key']).toBeUndefined();
  // The caller's own, or the gateway's default for a translated request.
  expect(got.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  expect(JSON.stringify(got.headers)).not.toContain(GATEWAY_KEY);
  expect((got.json as { model?: unknown }).model).toBe('my-claude-deployment');
}

describe('foundry through the gateway', () => {
  it('Anthropic Messages, passed through, whole and streamed', async () => {
    const message = await anthropic.messages.create({ model: 'claude-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: CANNED_TEXT })]);
    expectFoundryRequest();

    const stream = anthropic.messages.stream({ model: 'claude-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    expect(text).toBe(CANNED_TEXT);
    expectFoundryRequest();
  });

  it('count_tokens goes to Foundry\'s own counter', async () => {
    const count = await anthropic.messages.countTokens({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] });
    expect(count.input_tokens).toBe(42);
    expectFoundryRequest('/anthropic/v1/messages/count_tokens');
  });

  it('Chat Completions, translated to Messages, whole and streamed', async () => {
    const chat = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]?.message.content).toBe(CANNED_TEXT);
    expectFoundryRequest();

    const stream = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(CANNED_TEXT);
    expectFoundryRequest();
  });

  it('Responses, translated to Messages, whole and streamed', async () => {
    const response = await openai.responses.create({ model: 'claude-sonnet', input: 'hi' });
    expect(response.output_text).toBe(CANNED_TEXT);
    expectFoundryRequest();

    const stream = await openai.responses.create({ model: 'claude-sonnet', input: 'hi', stream: true });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe(CANNED_TEXT);
    expectFoundryRequest();
  });

  it('Microsoft Entra ID: a token for Foundry\'s scope as Authorization: Bearer, no key; kept for the next request', async () => {
    const message = await anthropic.messages.create({ model: 'claude-entra', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: CANNED_TEXT })]);
    const chat = await openai.chat.completions.create({ model: 'claude-entra', messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const _ of chat) {
      // drained
    }
    expect(entra.issued).toHaveLength(1);
    expect(new URLSearchParams(login.last().body.toString('utf8')).get('scope')).toBe(FOUNDRY_SCOPE);
    const got = foundry.last();
    expect(got.headers.authorization).toBe(`Bearer ${entra.issued[0]}`);
    expect(got.headers['x-api-key']).toBeUndefined();
  });

  it('the fake is as strict as Foundry: a token issued for Azure OpenAI\'s scope is refused', async () => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: ENTRA_APP.clientId, client_secret: ENTRA_APP.clientSecret, scope: COGNITIVE_SERVICES_SCOPE });
    const issued = (await (
      await fetch(`${login.url}/${ENTRA_APP.tenantId}/oauth2/v2.0/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form })
    ).json()) as { access_token: string };
    const res = await fetch(`${foundry.url}/anthropic/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${issued.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
  });

  it('a Foundry error reaches the caller in its own shape, without the key', async () => {
    foundry.once((_req, res) =>
      sendJson(res, 429, { type: 'error', error: { type: 'rate_limit_error', message: `Rate limit reached for key ${FOUNDRY_KEY}` } }, { 'retry-after': '1' }),
    );
    const err = await anthropic.messages.create({ model: 'claude-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect(String((err as Error).message)).not.toContain(FOUNDRY_KEY);
  });
});
