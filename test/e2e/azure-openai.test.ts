/**
 * The azure-openai provider kind through the real gateway: the official OpenAI SDK (Chat and
 * Responses, streaming and not) and the Anthropic SDK (Messages, translated) call models
 * served by a fake that behaves as Azure OpenAI does (fake-azure.ts), in its v1 API and in the
 * deployment form, with a key or with Microsoft Entra ID tokens from a fake token endpoint. What
 * reaches it: the paths and api-version of each form, the key in the api-key header and no
 * Authorization (or a token issued for Azure OpenAI and no key), the deployment name.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { CANNED_TEXT } from '../helpers/canned.js';
import { AZURE_KEY, COGNITIVE_SERVICES_SCOPE, ENTRA_APP, type FakeEntra, fakeAzure, fakeEntra } from '../helpers/fake-azure.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';

let upstream: FakeUpstream;
let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  const config = {
    providers: { azure: { type: 'azure-openai', baseUrl: `${upstream.url}/openai/v1`, apiKey: '${AZURE_OPENAI_API_KEY}', retries: 0 } },
    models: { 'gpt-4.1': { provider: 'azure', upstreamModel: 'my-gpt41-deployment' } },
    keyGroups: { dev: { keys: [GATEWAY_KEY] } },
  } as WrittenConfig;
  gw = await startGateway(config, { env: { AZURE_OPENAI_API_KEY: AZURE_KEY } });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.reset();
  upstream.always(fakeAzure());
});

/** What reached the fake Azure: the path, the api-key header only, the deployment as the model. */
function expectAzureRequest(path: string) {
  const got = upstream.last();
  expect(got.url).toBe(path);
  expect(got.headers['api-key']).toBe(AZURE_KEY);
  expect(got.headers.authorization).toBeUndefined();
  expect(got.headers['x-api-key']).toBeUndefined();
  expect(JSON.stringify(got.headers)).not.toContain(GATEWAY_KEY);
  expect((got.json as { model?: unknown }).model).toBe('my-gpt41-deployment');
}

describe('azure-openai through the gateway', () => {
  it('Chat Completions, whole', async () => {
    const chat = await openai.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]?.message.content).toBe(CANNED_TEXT);
    expectAzureRequest('/openai/v1/chat/completions');
  });

  it('Chat Completions, streamed', async () => {
    const stream = await openai.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(CANNED_TEXT);
    expectAzureRequest('/openai/v1/chat/completions');
  });

  it('Responses, whole', async () => {
    const response = await openai.responses.create({ model: 'gpt-4.1', input: 'hi' });
    expect(response.output_text).toBe(CANNED_TEXT);
    expectAzureRequest('/openai/v1/responses');
  });

  it('Responses, streamed', async () => {
    const stream = await openai.responses.create({ model: 'gpt-4.1', input: 'hi', stream: true });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe(CANNED_TEXT);
    expectAzureRequest('/openai/v1/responses');
  });

  it('Anthropic Messages, translated to Responses, whole and streamed', async () => {
    const message = await anthropic.messages.create({ model: 'gpt-4.1', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: CANNED_TEXT })]);
    expectAzureRequest('/openai/v1/responses');

    const stream = anthropic.messages.stream({ model: 'gpt-4.1', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    expect(text).toBe(CANNED_TEXT);
    expectAzureRequest('/openai/v1/responses');
  });

  it('an Azure error reaches the caller in its own shape, without the Azure key; the next request succeeds', async () => {
    upstream.once((_req, res) => sendJson(res, 429, { error: { code: '429', message: `Rate limit reached for key ${AZURE_KEY}` } }, { 'retry-after': '1' }));
    const err = await openai.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(String((err as Error).message)).not.toContain(AZURE_KEY);
    expect(String((err as Error).message)).toContain('[redacted]');

    const after = await openai.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] });
    expect(after.choices[0]?.message.content).toBe(CANNED_TEXT);
  });
});

const DEPLOYMENTS = ['my-gpt41-deployment', 'pinned-deployment'];
const VERSION = '2025-04-01-preview';

describe('azure-openai in the deployment form', () => {
  let az: FakeUpstream;
  let dgw: TestGateway;
  let oa: OpenAI;
  let an: Anthropic;

  beforeAll(async () => {
    az = await startFakeUpstream();
    const config = {
      providers: {
        // Each model's upstreamModel names its deployment.
        azure: { type: 'azure-openai', baseUrl: az.url, apiVersion: VERSION, apiKey: '${AZURE_OPENAI_API_KEY}', retries: 0 },
        // One deployment for every model on the provider: Chat only.
        pinned: { type: 'azure-openai', baseUrl: az.url, apiVersion: '2024-10-21', deployment: 'pinned-deployment', protocols: ['chat'], apiKey: '${AZURE_OPENAI_API_KEY}', retries: 0 },
        // A dated api-version the resource does not know.
        unknownVersion: { type: 'azure-openai', baseUrl: az.url, apiVersion: '2023-01-01', apiKey: '${AZURE_OPENAI_API_KEY}', retries: 0 },
      },
      models: {
        'gpt-4.1': { provider: 'azure', upstreamModel: 'my-gpt41-deployment' },
        'gpt-4.1-pinned': { provider: 'pinned' },
        'gpt-4.1-old': { provider: 'unknownVersion', upstreamModel: 'my-gpt41-deployment' },
      },
      keyGroups: { dev: { keys: [GATEWAY_KEY] } },
    } as WrittenConfig;
    dgw = await startGateway(config, { env: { AZURE_OPENAI_API_KEY: AZURE_KEY } });
    oa = new OpenAI({ baseURL: `${dgw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
    an = new Anthropic({ baseURL: dgw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
  });
  afterAll(async () => {
    await dgw.close();
    await az.close();
  });
  beforeEach(() => {
    az.reset();
    az.always(fakeAzure({ deployments: DEPLOYMENTS }));
  });

  const expectReached = (url: string, model: string) => {
    const got = az.last();
    expect(got.url).toBe(url);
    expect(got.headers['api-key']).toBe(AZURE_KEY);
    expect(got.headers.authorization).toBeUndefined();
    expect((got.json as { model?: unknown }).model).toBe(model);
  };

  it('Chat, whole and streamed: the deployment in the path, the api-version in the query', async () => {
    const chat = await oa.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]?.message.content).toBe(CANNED_TEXT);
    expectReached(`/openai/deployments/my-gpt41-deployment/chat/completions?api-version=${VERSION}`, 'my-gpt41-deployment');

    const stream = await oa.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(CANNED_TEXT);
    expectReached(`/openai/deployments/my-gpt41-deployment/chat/completions?api-version=${VERSION}`, 'my-gpt41-deployment');
  });

  it('Responses, whole and streamed: /openai/responses, the deployment in the body', async () => {
    const response = await oa.responses.create({ model: 'gpt-4.1', input: 'hi' });
    expect(response.output_text).toBe(CANNED_TEXT);
    expectReached(`/openai/responses?api-version=${VERSION}`, 'my-gpt41-deployment');

    const stream = await oa.responses.create({ model: 'gpt-4.1', input: 'hi', stream: true });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe(CANNED_TEXT);
    expectReached(`/openai/responses?api-version=${VERSION}`, 'my-gpt41-deployment');
  });

  it('Anthropic Messages translated to Chat on a provider with one deployment, whole and streamed', async () => {
    const message = await an.messages.create({ model: 'gpt-4.1-pinned', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: CANNED_TEXT })]);
    expect(az.last().url).toBe('/openai/deployments/pinned-deployment/chat/completions?api-version=2024-10-21');

    const stream = an.messages.stream({ model: 'gpt-4.1-pinned', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    expect(text).toBe(CANNED_TEXT);
    expect(az.last().url).toBe('/openai/deployments/pinned-deployment/chat/completions?api-version=2024-10-21');
  });

  it('an api-version Azure does not know: its 400 reaches the caller', async () => {
    const err = await oa.chat.completions.create({ model: 'gpt-4.1-old', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String((err as Error).message)).toContain('API version not supported');
  });

  it('the fake is as strict as Azure: no api-version is 404, an unknown one 400, an unknown deployment 404', async () => {
    const post = (path: string, model = 'my-gpt41-deployment') =>
      fetch(`${az.url}${path}`, { method: 'POST', headers: { 'api-key': AZURE_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ model, input: 'hi' }) }).then(
        async (r) => [r.status, ((await r.json()) as { error: { code: string } }).error.code],
      );
    expect(await post('/openai/deployments/my-gpt41-deployment/chat/completions')).toEqual([404, '404']);
    expect(await post('/openai/deployments/my-gpt41-deployment/chat/completions?api-version=2099-01-01')).toEqual([400, 'BadRequest']);
    expect(await post('/openai/responses?api-version=2024-10-21')).toEqual([400, 'BadRequest']);
    expect(await post('/openai/deployments/nope/chat/completions?api-version=2024-10-21')).toEqual([404, 'DeploymentNotFound']);
    expect(await post(`/openai/responses?api-version=${VERSION}`, 'nope')).toEqual([404, 'DeploymentNotFound']);
  });
});

describe('azure-openai with Microsoft Entra ID', () => {
  let az: FakeUpstream;
  let login: FakeUpstream;
  let entra: FakeEntra;
  let egw: TestGateway;
  let oa: OpenAI;

  const entraEntry = (clientSecret: string) => ({
    type: 'azure-openai',
    baseUrl: az.url,
    apiVersion: VERSION,
    tenantId: '${AZURE_TENANT_ID}',
    clientId: '${AZURE_CLIENT_ID}',
    clientSecret,
    authorityHost: login.url,
    retries: 0,
  });

  beforeAll(async () => {
    az = await startFakeUpstream();
    login = await startFakeUpstream();
    entra = fakeEntra();
    const config = {
      providers: {
        azure: entraEntry('${AZURE_CLIENT_SECRET}'),
        // Its own token source: the expiry test sets the lifetime before its first token.
        shortLived: entraEntry('${AZURE_CLIENT_SECRET}'),
        wrongSecret: entraEntry('not-the-client-secret-value-99'),
      },
      models: {
        'gpt-4.1': { provider: 'azure', upstreamModel: 'my-gpt41-deployment' },
        'gpt-4.1-short': { provider: 'shortLived', upstreamModel: 'my-gpt41-deployment' },
        'gpt-4.1-refused': { provider: 'wrongSecret', upstreamModel: 'my-gpt41-deployment' },
      },
      keyGroups: { dev: { keys: [GATEWAY_KEY] } },
    } as WrittenConfig;
    egw = await startGateway(config, {
      env: { AZURE_TENANT_ID: ENTRA_APP.tenantId, AZURE_CLIENT_ID: ENTRA_APP.clientId, AZURE_CLIENT_SECRET: ENTRA_APP.clientSecret },
    });
    oa = new OpenAI({ baseURL: `${egw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
  });
  afterAll(async () => {
    await egw.close();
    await az.close();
    await login.close();
  });
  beforeEach(() => {
    // One tenant for the whole run, so that a provider's token outlives a test.
    entra.expiresIn = 3599;
    entra.issued.length = 0;
    login.reset();
    login.always(entra.behaviour);
    az.reset();
    az.always(fakeAzure({ entra, deployments: DEPLOYMENTS }));
  });

  const bearer = () => az.last().headers.authorization;

  it('a token for Azure OpenAI\'s scope as Authorization: Bearer, no api-key; one token for several requests, whole and streamed', async () => {
    const chat = await oa.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]?.message.content).toBe(CANNED_TEXT);
    expect(entra.issued).toHaveLength(1);
    expect(bearer()).toBe(`Bearer ${entra.issued[0]}`);
    expect(az.last().headers['api-key']).toBeUndefined();
    expect(new URLSearchParams(login.last().body.toString('utf8')).get('scope')).toBe(COGNITIVE_SERVICES_SCOPE);

    const stream = await oa.responses.create({ model: 'gpt-4.1', input: 'hi', stream: true });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe(CANNED_TEXT);
    expect(bearer()).toBe(`Bearer ${entra.issued[0]}`);
    expect(entra.issued).toHaveLength(1);
  });

  it('a token that expires mid-run is renewed before it is refused', async () => {
    entra.expiresIn = 2;
    const ask = () => oa.chat.completions.create({ model: 'gpt-4.1-short', messages: [{ role: 'user', content: 'hi' }] });
    await ask();
    await ask();
    // Kept while it has more than half its life left.
    expect(entra.issued).toHaveLength(1);
    const first = entra.issued[0]!;
    await new Promise((r) => setTimeout(r, 2100));
    // Azure now refuses the first token; the gateway no longer sends it.
    expect(entra.accepts(first, COGNITIVE_SERVICES_SCOPE)).toBe(false);
    const chat = await ask();
    expect(chat.choices[0]?.message.content).toBe(CANNED_TEXT);
    expect(entra.issued).toHaveLength(2);
    expect(bearer()).toBe(`Bearer ${entra.issued[1]}`);
  });

  it('a token the upstream refuses is dropped, and the next request gets another', async () => {
    const ask = () => oa.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] });
    await ask();
    const held = bearer();
    // Revoked early: Azure refuses it once.
    az.once((_req, res) => sendJson(res, 401, { error: { code: 'PermissionDenied', message: 'Unauthorized. Access token is missing, invalid, audience is incorrect, or have expired.' } }));
    const refused = await ask().catch((e: unknown) => e);
    expect((refused as { status?: number }).status).toBe(502);
    expect(String((refused as Error).message)).toContain("refused the gateway's Microsoft Entra ID token (HTTP 401)");
    expect(String((refused as Error).message)).toContain('the app registration of providers.azure');
    const chat = await ask();
    expect(chat.choices[0]?.message.content).toBe(CANNED_TEXT);
    expect(bearer()).not.toBe(held);
    expect(bearer()).toBe(`Bearer ${entra.issued.at(-1)}`);
  });

  it('a client secret Entra refuses: a 502 naming Entra\'s reason, no secret, nothing sent to Azure', async () => {
    const err = await oa.chat.completions.create({ model: 'gpt-4.1-refused', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect((err as { status?: number }).status).toBe(502);
    const message = String((err as Error).message);
    expect(message).toContain('AADSTS7000215');
    expect(message).not.toContain('not-the-client-secret-value-99');
    expect(az.received).toHaveLength(0);
  });
});
