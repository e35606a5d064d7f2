/**
 * The azure-openai provider kind through the real gateway: the official OpenAI SDK (Chat and
 * Responses, streaming and not) and the Anthropic SDK (Messages, translated) call models
 * served by a fake that behaves as Azure OpenAI's v1 API does (fake-azure.ts). What reaches it:
 * the /openai/v1/ paths, the key in the api-key header and no Authorization, the deployment
 * name as the model.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { CANNED_TEXT } from '../helpers/canned.js';
import { AZURE_KEY, fakeAzure } from '../helpers/fake-azure.js';
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
