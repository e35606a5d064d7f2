/**
 * Gemini models on a `vertex` provider through the real gateway: one provider serves Claude (in
 * Messages) and Gemini (in Gemini's own protocol), the protocol following the model's id. Google's
 * SDK calls Gemini natively, the Anthropic and OpenAI SDKs translated, on a fake Vertex AI whose
 * Google publisher is a fake Gemini 3 (thought signatures given and required back), with tokens from
 * a fake Google token endpoint. What reaches Vertex: Google's publisher path with the method (and
 * `alt=sse` for a stream), an issued bearer token and no key, Gemini's body; counts in Vertex's own
 * shape, answered by Vertex's counter rather than the gateway's estimate.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import type { Json } from '#src/translate/types.js';
import { configIssues } from '../helpers/config-issues.js';
import { startFakeGoogleToken, TEST_PROJECT, type FakeGoogleToken } from '../helpers/fake-google-token.js';
import { fakeGemini, GEMINI_TEXT, type FakeGemini } from '../helpers/fake-gemini.js';
import { fakeVertex, VERTEX_GEMINI_KEY, VERTEX_VERSION } from '../helpers/fake-vertex.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';

const REGION = 'us-east5';
const GEMINI = 'gemini-3-pro-preview';
const CLAUDE = 'claude-sonnet-4-5@20250929';
const PUBLISHERS = `/v1/projects/${TEST_PROJECT}/locations/${REGION}/publishers`;
const RESULT = 'sunny, 24C';
const WEATHER_SCHEMA = { type: 'object', properties: { city: { type: 'string', description: 'The city' } }, required: ['city'] };

let tokens: FakeGoogleToken;
let vertex: FakeUpstream;
let gemini: FakeGemini;
let gw: TestGateway;
let anthropic: Anthropic;
let openai: OpenAI;
let google: GoogleGenAI;

beforeAll(async () => {
  tokens = await startFakeGoogleToken();
  vertex = await startFakeUpstream();
  gw = await startGateway({
    providers: { vertex: { type: 'vertex', region: REGION, credentialsFile: tokens.credentialsFile, baseUrl: vertex.url, retries: 0 } },
    models: {
      'gemini-on-vertex': { provider: 'vertex', upstreamModel: GEMINI },
      'claude-on-vertex': { provider: 'vertex', upstreamModel: CLAUDE },
    },
    keyGroups: { dev: { keys: [GATEWAY_KEY] } },
  } as unknown as WrittenConfig);
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
  google = new GoogleGenAI({ apiKey: GATEWAY_KEY, httpOptions: { baseUrl: gw.url, apiVersion: 'v1beta' } });
});
afterAll(async () => {
  await gw.close();
  await vertex.close();
  await tokens.close();
});
beforeEach(() => {
  vertex.reset();
  gemini = fakeGemini({ apiKey: VERTEX_GEMINI_KEY, models: [GEMINI] });
  vertex.always(fakeVertex(tokens, { project: TEST_PROJECT, region: REGION, gemini }));
});

/** What reached Vertex for one Gemini call: Google's publisher path, an issued token and no key, Gemini's body. */
function expectGoogleCall(got: Received, method: string) {
  expect(got.url).toBe(`${PUBLISHERS}/google/models/${GEMINI}:${method}`);
  expect(tokens.check(String(got.headers.authorization).replace(/^Bearer /, ''))).toBe('valid');
  expect(got.headers['x-goog-api-key']).toBeUndefined();
  expect(JSON.stringify(got.headers)).not.toContain(GATEWAY_KEY);
  expect(got.json).not.toHaveProperty('model');
  expect(got.json).not.toHaveProperty('anthropic_version');
}

/** The thought signature on the function call sent back in turn 2, which the fake Gemini gave for that call. */
function expectSignatureBack(got: Received) {
  const parts = ((got.json as Json).contents as Json[]).filter((c) => c.role === 'model').flatMap((c) => c.parts as Json[]);
  const call = parts.find((p) => p.functionCall !== undefined);
  expect(call, 'the function call is sent back').toBeDefined();
  expect(gemini.gave(call!.thoughtSignature, 'get_weather'), 'with the signature Gemini gave').toBe(true);
}

describe('Gemini on Vertex AI', () => {
  it("Google's SDK natively, whole and streamed: generateContent and streamGenerateContent?alt=sse", async () => {
    const whole = await google.models.generateContent({ model: 'gemini-on-vertex', contents: 'hi' });
    expect(whole.text).toBe(GEMINI_TEXT);
    expectGoogleCall(vertex.last(), 'generateContent');

    const chunks: string[] = [];
    for await (const chunk of await google.models.generateContentStream({ model: 'gemini-on-vertex', contents: 'hi' })) chunks.push(chunk.text ?? '');
    expect(chunks.join('')).toBe(GEMINI_TEXT);
    expect(chunks.length).toBeGreaterThan(1);
    expectGoogleCall(vertex.last(), 'streamGenerateContent?alt=sse');
  });

  it.each([false, true])('Anthropic Messages, translated: a tool loop, the thought signature back on turn 2 (stream: %s)', async (stream) => {
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather in a city', input_schema: WEATHER_SCHEMA as Anthropic.Tool.InputSchema }];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const send = (history: Anthropic.MessageParam[]) =>
      stream
        ? anthropic.messages.stream({ model: 'gemini-on-vertex', max_tokens: 1024, messages: history, tools }).finalMessage()
        : anthropic.messages.create({ model: 'gemini-on-vertex', max_tokens: 1024, messages: history, tools });
    const first = await send(messages);
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b) => b.type === 'tool_use')!;
    expect({ name: use.name, input: use.input }).toEqual({ name: 'get_weather', input: { city: 'Paris' } });
    expectGoogleCall(vertex.last(), stream ? 'streamGenerateContent?alt=sse' : 'generateContent');

    const second = await send([
      ...messages,
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: RESULT }] },
    ]);
    expect(second.content.filter((b) => b.type === 'text').map((b) => b.text)).toEqual([GEMINI_TEXT]);
    expectSignatureBack(vertex.last());
  });

  it('OpenAI Chat Completions, translated, streamed', async () => {
    const stream = openai.chat.completions.stream({ model: 'gemini-on-vertex', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
    const done = await stream.finalChatCompletion();
    expect(done.choices[0]!.message.content).toBe(GEMINI_TEXT);
    expect(done.usage?.completion_tokens).toBeGreaterThan(0);
    expectGoogleCall(vertex.last(), 'streamGenerateContent?alt=sse');
  });

  it("count_tokens from Claude Code's protocol asks Vertex's counter, with the request's fields at the top level", async () => {
    const { data: counted, response } = await anthropic.messages
      .countTokens({ model: 'gemini-on-vertex', system: 'You are terse.', messages: [{ role: 'user', content: 'How many tokens is this?' }] })
      .withResponse();
    expect(response.headers.get('x-model-gateway-token-estimate')).toBeNull();
    const got = vertex.last();
    expectGoogleCall(got, 'countTokens');
    expect(got.json).not.toHaveProperty('generateContentRequest');
    expect(got.json).toMatchObject({ systemInstruction: { parts: [{ text: 'You are terse.' }] }, contents: [{ role: 'user' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  it("Google's SDK counts natively: its wrapped request unwrapped for Vertex", async () => {
    const count = await google.models.countTokens({ model: 'gemini-on-vertex', contents: 'How many tokens is this?' });
    expect(count.totalTokens).toBe(Math.ceil('How many tokens is this?'.length / 4));
    const got = vertex.last();
    expectGoogleCall(got, 'countTokens');
    expect(Object.keys(got.json as Json)).toEqual(['contents']);
  });

  it('the same provider calls its Claude model in Messages, at rawPredict in Vertex’s envelope', async () => {
    const message = await anthropic.messages.create({ model: 'claude-on-vertex', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.type).toBe('message');
    const got = vertex.last();
    expect(got.url).toBe(`${PUBLISHERS}/anthropic/models/${CLAUDE}:rawPredict`);
    expect((got.json as Json).anthropic_version).toBe(VERTEX_VERSION);
  });
});

describe('Gemini on Vertex AI in the config', () => {
  it('a vertex provider whose protocols leave Gemini out cannot serve a Gemini model', () => {
    const issues = configIssues({
      providers: { v: { type: 'vertex', region: REGION, protocols: ['messages'] } },
      models: { g: { provider: 'v', upstreamModel: GEMINI }, c: { provider: 'v', upstreamModel: CLAUDE } },
      keyGroups: { dev: { keys: ['k-0123456789abcdef0123'] } },
    });
    expect(issues).toEqual([{ path: 'models.g.provider', message: 'provider "v" calls "gemini-3-pro-preview" in gemini, which its protocols (messages) leave out' }]);
  });
});
