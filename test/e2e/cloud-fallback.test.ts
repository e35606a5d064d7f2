/**
 * One Claude model served by Anthropic, falling back to the same model on Amazon Bedrock and then on
 * Google Vertex AI: three model entries, each on its own provider kind, behind fakes that behave
 * like the real services (an Anthropic that is overloaded, a Bedrock that checks SigV4 and
 * throttles, a Vertex that takes only tokens its Google token endpoint issued). What the caller
 * gets, what each cloud received, and the path the log line and the log file show.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { CANNED_TEXT } from '../helpers/canned.js';
import { AWS_SESSION_CREDENTIALS, BEDROCK_REGION, type FakeBedrockOptions, fakeBedrock } from '../helpers/fake-bedrock.js';
import { startFakeGoogleToken, TEST_PROJECT, type FakeGoogleToken } from '../helpers/fake-google-token.js';
import { fakeVertex } from '../helpers/fake-vertex.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, PROVIDER_ANTHROPIC_KEY, startGateway, waitForLines, type TestGateway } from '../helpers/start-gateway.js';

const MODEL = 'claude-opus-4-6';
const ON_BEDROCK = 'claude-opus-4-6-bedrock';
const ON_VERTEX = 'claude-opus-4-6-vertex';
const ANTHROPIC_ID = 'claude-opus-4-6';
const BEDROCK_ID = 'global.anthropic.claude-opus-4-6-v1';
const VERTEX_ID = 'claude-opus-4-6';
const VERTEX_REGION = 'us-east5';
const BEDROCK_PATH = `/model/${encodeURIComponent(BEDROCK_ID)}`;
const VERTEX_PATH = `/v1/projects/${TEST_PROJECT}/locations/${VERTEX_REGION}/publishers/anthropic/models/${VERTEX_ID}`;

const BEDROCK: FakeBedrockOptions = { credentials: [AWS_SESSION_CREDENTIALS] };
const THROTTLED = 'Too many requests, please wait before trying again.';
/** Bedrock throttling a whole call: HTTP 429 with its error type. */
const throttledCall: FakeBedrockOptions = { ...BEDROCK, refuse: { status: 429, type: 'ThrottlingException', message: THROTTLED } };
/** Bedrock throttling a stream: an exception frame before the first chunk. */
const throttledStream: FakeBedrockOptions = { ...BEDROCK, exception: { type: 'throttlingException', message: THROTTLED, afterChunks: 0 } };

/** Anthropic's answer when it is overloaded. */
const overloaded = (_req: unknown, res: ServerResponse) =>
  sendJson(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_overloaded' }, { 'retry-after-ms': '20' });

interface LogEntry {
  model?: string;
  provider?: string;
  upstreamModel?: string;
  servedBy?: string;
  status?: number;
  tries?: { model: string; provider: string; status?: number; error?: string }[];
}

let anthropicUp: FakeUpstream;
let bedrockUp: FakeUpstream;
let vertexUp: FakeUpstream;
let tokens: FakeGoogleToken;
let gw: TestGateway;
let logFile: string;
let scratch: string;

beforeAll(async () => {
  [anthropicUp, bedrockUp, vertexUp, tokens] = await Promise.all([startFakeUpstream(), startFakeUpstream(), startFakeUpstream(), startFakeGoogleToken()]);
  scratch = mkdtempSync(join(tmpdir(), 'mgw-cloud-fallback-'));
  logFile = join(scratch, 'requests.jsonl');
  // The AWS credential chain reads this process's environment: session credentials, nothing of the machine's own.
  const aws: Record<string, string | undefined> = {
    AWS_ACCESS_KEY_ID: AWS_SESSION_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: AWS_SESSION_CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: AWS_SESSION_CREDENTIALS.sessionToken,
    AWS_PROFILE: undefined,
    AWS_SHARED_CREDENTIALS_FILE: join(scratch, 'no-credentials'),
    AWS_CONFIG_FILE: join(scratch, 'no-config'),
    AWS_CONTAINER_CREDENTIALS_FULL_URI: undefined,
    AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: undefined,
    AWS_WEB_IDENTITY_TOKEN_FILE: undefined,
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  for (const [name, value] of Object.entries(aws)) vi.stubEnv(name, value);
  const config = {
    providers: {
      anthropic: { type: 'anthropic', baseUrl: anthropicUp.url, apiKey: PROVIDER_ANTHROPIC_KEY, retries: 1 },
      bedrock: { type: 'bedrock', region: BEDROCK_REGION, baseUrl: bedrockUp.url, retries: 1 },
      vertex: { type: 'vertex', region: VERTEX_REGION, credentialsFile: tokens.credentialsFile, baseUrl: vertexUp.url, retries: 0 },
    },
    models: {
      [MODEL]: { provider: 'anthropic', upstreamModel: ANTHROPIC_ID, fallbacks: [ON_BEDROCK, ON_VERTEX] },
      [ON_BEDROCK]: { provider: 'bedrock', upstreamModel: BEDROCK_ID },
      [ON_VERTEX]: { provider: 'vertex', upstreamModel: VERTEX_ID },
    },
    keyGroups: { dev: { keys: [GATEWAY_KEY] } },
  } as unknown as WrittenConfig;
  gw = await startGateway(config, { logFile });
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await gw.close();
  await Promise.all([anthropicUp.close(), bedrockUp.close(), vertexUp.close(), tokens.close()]);
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  for (const up of [anthropicUp, bedrockUp, vertexUp]) up.reset();
  anthropicUp.always(overloaded);
  vertexUp.always(fakeVertex(tokens, { project: TEST_PROJECT, region: VERTEX_REGION }));
});

const anthropic = () => new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
const hi = { model: MODEL, max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }] };

/** The log line and the log-file entry of the request that just closed (the `count`-th). */
async function logged(count: number): Promise<{ line: string; entry: LogEntry }> {
  const line = (await waitForLines(gw, count))[count - 1]!;
  let entries: LogEntry[] = [];
  await vi.waitFor(() => {
    entries = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(0, -1).filter(Boolean).map((l) => JSON.parse(l) as LogEntry) : [];
    expect(entries.length).toBeGreaterThanOrEqual(count);
  });
  return { line, entry: entries[count - 1]! };
}

/** Anthropic's attempts: the model under its own id, with the provider's key. */
function expectAnthropicTried(times: number) {
  expect(anthropicUp.received.map((r) => r.url)).toEqual(Array.from({ length: times }, () => '/v1/messages'));
  for (const r of anthropicUp.received) {
    expect((r.json as { model: string }).model).toBe(ANTHROPIC_ID);
    expect(r.headers['x-api-key']).toBe(PROVIDER_ANTHROPIC_KEY);
  }
}

/** Bedrock's attempts: each signed with the session credentials, in Bedrock's envelope. */
function expectBedrockTried(times: number, action: 'invoke' | 'invoke-with-response-stream') {
  expect(bedrockUp.received.map((r) => r.url)).toEqual(Array.from({ length: times }, () => `${BEDROCK_PATH}/${action}`));
  for (const r of bedrockUp.received) {
    expect(r.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${AWS_SESSION_CREDENTIALS.accessKeyId}/`));
    expect(r.json).toMatchObject({ anthropic_version: 'bedrock-2023-05-31' });
    expect(r.json).not.toHaveProperty('model');
  }
}

/** Vertex's one call, with a token its endpoint issued, in Vertex's envelope. */
function expectVertexServed(method: 'rawPredict' | 'streamRawPredict') {
  expect(vertexUp.received.map((r) => r.url)).toEqual([`${VERTEX_PATH}:${method}`]);
  const got = vertexUp.last();
  expect(tokens.check(String(got.headers.authorization).replace(/^Bearer /, ''))).toBe('valid');
  expect(got.json).toMatchObject({ anthropic_version: 'vertex-2023-10-16' });
  expect(got.json).not.toHaveProperty('model');
}

const ALL_FAILED_BEFORE_VERTEX = [
  { model: MODEL, provider: 'anthropic', status: 529 },
  { model: MODEL, provider: 'anthropic', status: 529 },
  { model: ON_BEDROCK, provider: 'bedrock', status: 429 },
  { model: ON_BEDROCK, provider: 'bedrock', status: 429 },
];
const VIA_VERTEX = `via ${MODEL} 529×2 → ${ON_BEDROCK} 429×2 → ${ON_VERTEX} `;

describe('Anthropic overloaded, Bedrock throttling: Vertex answers', () => {
  it('Anthropic SDK, whole: a 429 ThrottlingException from Bedrock, then rawPredict on Vertex', async () => {
    bedrockUp.always(fakeBedrock(throttledCall));
    const count = gw.lines().length + 1;
    const message = await anthropic().messages.create(hi);
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: CANNED_TEXT })]);
    expectAnthropicTried(2);
    expectBedrockTried(2, 'invoke');
    expectVertexServed('rawPredict');

    const { line, entry } = await logged(count);
    expect(line).toContain(` 200 POST /v1/messages ${MODEL} → vertex/${VERTEX_ID} ${VIA_VERTEX}`);
    expect(entry).toMatchObject({ status: 200, model: MODEL, servedBy: ON_VERTEX, provider: 'vertex', upstreamModel: VERTEX_ID, tries: ALL_FAILED_BEFORE_VERTEX });
  });

  it('Anthropic SDK, streamed: a throttling exception frame before the first chunk, then streamRawPredict on Vertex', async () => {
    bedrockUp.always(fakeBedrock(throttledStream));
    const count = gw.lines().length + 1;
    let text = '';
    for await (const event of anthropic().messages.stream(hi)) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    expect(text).toBe(CANNED_TEXT);
    expectAnthropicTried(2);
    expectBedrockTried(2, 'invoke-with-response-stream');
    expectVertexServed('streamRawPredict');

    const { line, entry } = await logged(count);
    expect(line).toContain(` 200 POST /v1/messages ${MODEL} → vertex/${VERTEX_ID} ${VIA_VERTEX}`);
    expect(entry).toMatchObject({ status: 200, servedBy: ON_VERTEX, provider: 'vertex', tries: ALL_FAILED_BEFORE_VERTEX });
  });

  it('OpenAI SDK, Chat Completions streamed: translated to Messages on every route, answered by Vertex', async () => {
    bedrockUp.always(fakeBedrock(throttledStream));
    const count = gw.lines().length + 1;
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
    const stream = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(CANNED_TEXT);
    expectAnthropicTried(2);
    expectBedrockTried(2, 'invoke-with-response-stream');
    expectVertexServed('streamRawPredict');
    expect(vertexUp.last().json).toMatchObject({ stream: true, messages: [{ role: 'user' }] });

    const { line, entry } = await logged(count);
    expect(line).toContain(` 200 POST /v1/chat/completions ${MODEL} → vertex/${VERTEX_ID} [chat→messages] ${VIA_VERTEX}`);
    expect(entry).toMatchObject({ status: 200, servedBy: ON_VERTEX, tries: ALL_FAILED_BEFORE_VERTEX });
  });
});

describe('Anthropic overloaded: Bedrock answers', () => {
  it('Anthropic SDK, streamed: the event stream relayed as Anthropic events; Vertex is never asked', async () => {
    bedrockUp.always(fakeBedrock(BEDROCK));
    const count = gw.lines().length + 1;
    const message = await anthropic().messages.stream(hi).finalMessage();
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: CANNED_TEXT })]);
    expectAnthropicTried(2);
    expectBedrockTried(1, 'invoke-with-response-stream');
    expect(vertexUp.received).toEqual([]);

    const { line, entry } = await logged(count);
    expect(line).toContain(` 200 POST /v1/messages ${MODEL} → bedrock/${BEDROCK_ID} via ${MODEL} 529×2 → ${ON_BEDROCK} `);
    expect(entry).toMatchObject({ status: 200, servedBy: ON_BEDROCK, provider: 'bedrock', upstreamModel: BEDROCK_ID, tries: ALL_FAILED_BEFORE_VERTEX.slice(0, 2) });
  });
});
