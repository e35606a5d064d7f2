/**
 * The vertex provider kind through the real gateway: the Anthropic SDK natively (whole, streamed,
 * tools, count_tokens, betas) and the OpenAI SDK translated (Chat, Responses) call Claude on a fake
 * Vertex AI (fake-vertex.ts), with tokens from a fake Google token endpoint (fake-google-token.ts)
 * reached through the service account file's token_uri by the real JWT bearer flow. What reaches
 * Vertex: its paths, a bearer token the endpoint issued, the body in Vertex's envelope. Tokens are
 * cached, fetched again before they expire, and fetched again after Vertex refused one.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { REFRESH_BEFORE_MS } from '#src/providers/vertex/google-credentials.js';
import { CANNED_TEXT } from '../helpers/canned.js';
import { startFakeGoogleToken, TEST_PROJECT, type FakeGoogleToken } from '../helpers/fake-google-token.js';
import { fakeVertex, TOOL_INPUT, VERTEX_VERSION } from '../helpers/fake-vertex.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';

const REGION = 'us-east5';
const MODEL = 'claude-sonnet-4-5@20250929';
const MODEL_PATH = `/v1/projects/${TEST_PROJECT}/locations/${REGION}/publishers/anthropic/models/${MODEL}`;
const GLOBAL_PROJECT = 'other-project-42';

let tokens: FakeGoogleToken;
let vertex: FakeUpstream;
let globalVertex: FakeUpstream;
let gw: TestGateway;
let anthropic: Anthropic;
let openai: OpenAI;

const configFor = (credentialsFile: string): WrittenConfig =>
  ({
    providers: {
      // No project: the service account's own.
      vertex: { type: 'vertex', region: REGION, credentialsFile, baseUrl: vertex.url, retries: 0 },
      'vertex-global': { type: 'vertex', region: 'global', project: GLOBAL_PROJECT, credentialsFile, baseUrl: globalVertex.url, retries: 0 },
    },
    models: {
      'claude-on-vertex': { provider: 'vertex', upstreamModel: MODEL },
      'claude-global': { provider: 'vertex-global', upstreamModel: 'claude-opus-4-6' },
    },
    keyGroups: { dev: { keys: [GATEWAY_KEY] } },
  }) as unknown as WrittenConfig;

beforeAll(async () => {
  tokens = await startFakeGoogleToken();
  vertex = await startFakeUpstream();
  globalVertex = await startFakeUpstream();
  gw = await startGateway(configFor(tokens.credentialsFile));
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await vertex.close();
  await globalVertex.close();
  await tokens.close();
});
beforeEach(() => {
  tokens.lifetimeSeconds = 3600;
  vertex.reset();
  vertex.always(fakeVertex(tokens, { project: TEST_PROJECT, region: REGION }));
  globalVertex.reset();
  globalVertex.always(fakeVertex(tokens, { project: GLOBAL_PROJECT, region: 'global' }));
});

const bearer = (got: Received) => String(got.headers.authorization).replace(/^Bearer /, '');

/** What reached the fake Vertex: its path, an issued token and nothing else of credentials, Vertex's envelope. */
function expectVertexRequest(got: Received, path: string) {
  expect(got.url).toBe(path);
  expect(tokens.check(bearer(got))).toBe('valid');
  expect(got.headers['x-api-key']).toBeUndefined();
  expect(got.headers['anthropic-version']).toBeUndefined();
  expect(JSON.stringify(got.headers)).not.toContain(GATEWAY_KEY);
  const body = got.json as Record<string, unknown>;
  expect(body.anthropic_version).toBe(VERTEX_VERSION);
}

const hi = { model: 'claude-on-vertex', max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }] };

describe('vertex through the gateway', () => {
  it('Anthropic Messages, whole: rawPredict with the model in the path and not in the body', async () => {
    const message = await anthropic.messages.create(hi);
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: CANNED_TEXT })]);
    const got = vertex.last();
    expectVertexRequest(got, `${MODEL_PATH}:rawPredict`);
    expect(got.json).not.toHaveProperty('model');
  });

  it('Anthropic Messages, streamed: streamRawPredict, the stream flag kept', async () => {
    const stream = anthropic.messages.stream(hi);
    let text = '';
    for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    expect(text).toBe(CANNED_TEXT);
    const got = vertex.last();
    expectVertexRequest(got, `${MODEL_PATH}:streamRawPredict`);
    expect(got.json).toMatchObject({ stream: true });
  });

  it('Anthropic Messages with tools, whole and streamed: the tool call comes back', async () => {
    const tools = [{ name: 'get_weather', description: 'Weather in a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }];
    const message = await anthropic.messages.create({ ...hi, tools });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: TOOL_INPUT })]);

    const final = await anthropic.messages.stream({ ...hi, tools }).finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: TOOL_INPUT })]);
    expectVertexRequest(vertex.last(), `${MODEL_PATH}:streamRawPredict`);
  });

  it('betas go in the body, those Vertex does not accept left out and named; fields it does not offer too', async () => {
    const { data, response } = await anthropic.messages
      .create(
        { ...hi, mcp_servers: [{ type: 'url', url: 'https://mcp.example.com/sse', name: 'example' }] } as never,
        { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14,claude-code-20250219,advanced-tool-use-2025-11-20' } },
      )
      .withResponse();
    expect(data.content).toEqual([expect.objectContaining({ text: CANNED_TEXT })]);
    const body = vertex.last().json as Record<string, unknown>;
    expect(body.anthropic_beta).toEqual(['interleaved-thinking-2025-05-14', 'tool-search-tool-2025-10-19']);
    expect(body).not.toHaveProperty('mcp_servers');
    const dropped = response.headers.get('x-model-gateway-dropped') ?? '';
    expect(dropped).toContain('anthropic-beta claude-code-20250219');
    expect(dropped).toContain('mcp_servers');
    expect(dropped).not.toContain('interleaved-thinking');
  });

  it('count_tokens: count-tokens:rawPredict, the model named in the body', async () => {
    const count = await anthropic.messages.countTokens({ model: 'claude-on-vertex', messages: [{ role: 'user', content: 'hi' }] });
    expect(count.input_tokens).toBe(42);
    const got = vertex.last();
    expectVertexRequest(got, `/v1/projects/${TEST_PROJECT}/locations/${REGION}/publishers/anthropic/models/count-tokens:rawPredict`);
    expect((got.json as Record<string, unknown>).model).toBe(MODEL);
  });

  it('OpenAI Chat Completions, translated, whole and streamed', async () => {
    const chat = await openai.chat.completions.create({ model: 'claude-on-vertex', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]?.message.content).toBe(CANNED_TEXT);
    expectVertexRequest(vertex.last(), `${MODEL_PATH}:rawPredict`);

    const stream = await openai.chat.completions.create({ model: 'claude-on-vertex', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(CANNED_TEXT);
    expectVertexRequest(vertex.last(), `${MODEL_PATH}:streamRawPredict`);
  });

  it('OpenAI Responses, translated, whole and streamed, with a tool call', async () => {
    const response = await openai.responses.create({ model: 'claude-on-vertex', input: 'hi' });
    expect(response.output_text).toBe(CANNED_TEXT);
    expectVertexRequest(vertex.last(), `${MODEL_PATH}:rawPredict`);

    const tools = [{ type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
    const stream = await openai.responses.create({ model: 'claude-on-vertex', input: 'weather?', tools, stream: true });
    let args = '';
    for await (const event of stream) if (event.type === 'response.function_call_arguments.done') args = event.arguments;
    expect(JSON.parse(args)).toEqual(TOOL_INPUT);
    expectVertexRequest(vertex.last(), `${MODEL_PATH}:streamRawPredict`);
  });

  it('the global region: its location in the path, the project as configured', async () => {
    const message = await anthropic.messages.create({ ...hi, model: 'claude-global' });
    expect(message.content).toEqual([expect.objectContaining({ text: CANNED_TEXT })]);
    expectVertexRequest(globalVertex.last(), `/v1/projects/${GLOBAL_PROJECT}/locations/global/publishers/anthropic/models/claude-opus-4-6:rawPredict`);
  });

  it('a Vertex error keeps its status and message; 429 RESOURCE_EXHAUSTED reaches the caller as a rate limit', async () => {
    vertex.once((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 429, message: 'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model.', status: 'RESOURCE_EXHAUSTED' } }));
    });
    const err = await anthropic.messages.create(hi).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect(String((err as Error).message)).toContain('Quota exceeded');
  });
});

describe('vertex tokens', () => {
  it('a token is reused while fresh and another fetched before it expires', async () => {
    const own = await startGateway(configFor(tokens.credentialsFile));
    try {
      const client = new Anthropic({ baseURL: own.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
      // Fresh for one second more than the library's margin: reused now, replaced after that second.
      tokens.lifetimeSeconds = REFRESH_BEFORE_MS / 1000 + 1;
      const before = tokens.issued.length;
      await client.messages.create(hi);
      await client.messages.create(hi);
      const [first, second] = vertex.received.slice(-2).map(bearer);
      expect(tokens.issued.length).toBe(before + 1);
      expect(second).toBe(first);

      await new Promise((r) => setTimeout(r, 1200));
      await client.messages.create(hi);
      expect(tokens.issued.length).toBe(before + 2);
      expect(bearer(vertex.last())).not.toBe(first);
      expect(tokens.check(bearer(vertex.last()))).toBe('valid');
    } finally {
      await own.close();
    }
  });

  it('a token Vertex refuses as expired fails that request as the operator\'s problem; the next one gets a new token', async () => {
    await anthropic.messages.create(hi);
    const held = bearer(vertex.last());
    tokens.expireAll();

    const err = await anthropic.messages.create(hi).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect(String((err as Error).message)).toContain("refused the gateway's credential");
    expect(String((err as Error).message)).not.toContain(held);

    const after = await anthropic.messages.create(hi);
    expect(after.content).toEqual([expect.objectContaining({ text: CANNED_TEXT })]);
    expect(bearer(vertex.last())).not.toBe(held);
  });
});
