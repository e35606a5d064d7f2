/**
 * The bedrock provider kind through the real gateway, against a fake Bedrock Runtime that checks
 * SigV4 signatures with an implementation of its own and refuses bodies the real one refuses
 * (fake-bedrock.ts): the Anthropic SDK natively (whole and streamed, tools, thinking, betas,
 * count_tokens), the OpenAI SDK's Chat and Responses translated to Bedrock's Messages, a
 * throttling exception before the first chunk retried, credentials from the environment, from a
 * shared credentials file's profile, and a Bedrock API key; and Bedrock's OpenAI-compatible Chat.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { CANNED_TEXT } from '../helpers/canned.js';
import {
  AWS_CREDENTIALS,
  AWS_SESSION_CREDENTIALS,
  BEDROCK_API_KEY,
  BEDROCK_REGION,
  FAKE_INPUT_TOKENS,
  type FakeBedrockOptions,
  fakeBedrock,
} from '../helpers/fake-bedrock.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';

const MODEL_ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const MODEL_PATH = `/model/${encodeURIComponent(MODEL_ID)}`;
const FAKE: FakeBedrockOptions = { credentials: [AWS_CREDENTIALS, AWS_SESSION_CREDENTIALS], apiKey: BEDROCK_API_KEY };

/** Only what a test sets: no credentials or instance metadata of the machine running it. */
const AWS_ENV_NAMES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_CONFIG_FILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
];

/** Sets the AWS environment the credential chain reads (process.env), and returns it for the config's own. */
function awsEnv(values: Record<string, string>): Record<string, string> {
  for (const name of AWS_ENV_NAMES) vi.stubEnv(name, undefined);
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
  for (const [name, value] of Object.entries(values)) vi.stubEnv(name, value);
  return values;
}

function config(upstreamUrl: string, provider: Record<string, unknown>): WrittenConfig {
  return {
    providers: {
      aws: { type: 'bedrock', baseUrl: upstreamUrl, retries: 1, ...provider },
      // The same kind on Bedrock's OpenAI-compatible endpoint, for its models other than Claude.
      awsChat: { type: 'bedrock', baseUrl: upstreamUrl, retries: 1, protocols: ['chat'], ...provider },
    },
    models: {
      'claude-sonnet-4-5': { provider: 'aws', upstreamModel: MODEL_ID },
      'gpt-oss': { provider: 'awsChat', upstreamModel: 'openai.gpt-oss-120b-1:0' },
    },
    keyGroups: { dev: { keys: [GATEWAY_KEY] } },
  } as WrittenConfig;
}

let upstream: FakeUpstream;

beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await upstream.close();
});
beforeEach(() => {
  upstream.reset();
  upstream.always(fakeBedrock(FAKE));
});

const body = () => upstream.last().json as Record<string, unknown>;

describe('bedrock with credentials from the environment', () => {
  let gw: TestGateway;
  let anthropic: Anthropic;
  let openai: OpenAI;

  beforeAll(async () => {
    // No region in the config: AWS_REGION gives it.
    const env = awsEnv({ AWS_ACCESS_KEY_ID: AWS_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: AWS_CREDENTIALS.secretAccessKey, AWS_REGION: BEDROCK_REGION });
    gw = await startGateway(config(upstream.url, {}), { env });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
  });
  afterAll(() => gw.close());

  it("Messages, whole: InvokeModel with Bedrock's body, signed; what Bedrock refuses is dropped and named", async () => {
    const { data, response } = await anthropic.messages
      .create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], metadata: { user_id: 'u1' } })
      .withResponse();
    expect(data.content).toEqual([expect.objectContaining({ type: 'text', text: CANNED_TEXT })]);
    expect(upstream.last().url).toBe(`${MODEL_PATH}/invoke`);
    expect(body()).toEqual({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect(upstream.last().headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAFAKEBEDROCK0001\//);
    expect(upstream.last().headers['anthropic-version']).toBeUndefined();
    expect(response.headers.get('x-model-gateway-dropped')).toBe('metadata');
  });

  it('Messages, streamed with tools: the event stream arrives as Anthropic events', async () => {
    const tools = [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }];
    const stream = anthropic.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, tools, messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } })]);
    expect(upstream.last().url).toBe(`${MODEL_PATH}/invoke-with-response-stream`);
    expect(body()).not.toHaveProperty('stream');
  });

  it('Messages with thinking and betas: known betas go in the body, the others are dropped', async () => {
    const { data, response } = await anthropic.beta.messages
      .create({
        model: 'claude-sonnet-4-5',
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        betas: ['interleaved-thinking-2025-05-14', 'files-api-2025-04-14'],
        messages: [{ role: 'user', content: 'Think.' }],
        stream: true,
      })
      .withResponse();
    const kinds: string[] = [];
    let signature = '';
    for await (const event of data) {
      if (event.type === 'content_block_start') kinds.push(event.content_block.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'signature_delta') signature = event.delta.signature;
    }
    expect(kinds).toEqual(['thinking', 'text']);
    expect(signature).not.toBe('');
    expect(body().anthropic_beta).toEqual(['interleaved-thinking-2025-05-14']);
    expect(upstream.last().headers['anthropic-beta']).toBeUndefined();
    expect(response.headers.get('x-model-gateway-dropped')).toBe('anthropic-beta files-api-2025-04-14');
  });

  it('a header naming hundreds of betas Bedrock does not know drops them all, and lists a bounded few', async () => {
    const betas = Array.from({ length: 600 }, (_, i) => `made-up-beta-${i}`);
    const { response } = await anthropic.beta.messages
      .create({ model: 'claude-sonnet-4-5', max_tokens: 16, betas, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(body()).not.toHaveProperty('anthropic_beta');
    const listed = response.headers.get('x-model-gateway-dropped')!.split(', ');
    expect(listed.length).toBeLessThanOrEqual(32);
    expect(listed[0]).toBe('anthropic-beta made-up-beta-0');
    expect(listed.at(-1)).toBe('more');
  });

  it("count_tokens goes to CountTokens and answers in Anthropic's shape", async () => {
    const count = await anthropic.messages.countTokens({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] });
    expect(count.input_tokens).toBe(FAKE_INPUT_TOKENS);
    expect(upstream.last().url).toBe(`${MODEL_PATH}/count-tokens`);
  });

  it('OpenAI Chat, translated to Bedrock Messages, whole and streamed', async () => {
    const chat = await openai.chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]?.message.content).toBe(CANNED_TEXT);
    expect(upstream.last().url).toBe(`${MODEL_PATH}/invoke`);
    const stream = await openai.chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(CANNED_TEXT);
    expect(upstream.last().url).toBe(`${MODEL_PATH}/invoke-with-response-stream`);
  });

  it('OpenAI Responses, translated to Bedrock Messages, streamed', async () => {
    const stream = await openai.responses.create({ model: 'claude-sonnet-4-5', input: 'hi', stream: true });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe(CANNED_TEXT);
    expect(body().anthropic_version).toBe('bedrock-2023-05-31');
  });

  it('a throttling exception before the first chunk is retried', async () => {
    upstream.once(fakeBedrock({ ...FAKE, exception: { type: 'throttlingException', message: 'Too many requests, please wait before trying again.', afterChunks: 0 } }));
    const message = await anthropic.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: CANNED_TEXT })]);
    expect(upstream.received).toHaveLength(2);
  });

  it('an exception after the first chunk reaches the caller as its error event', async () => {
    upstream.always(fakeBedrock({ ...FAKE, exception: { type: 'modelStreamErrorException', message: 'The model stream broke off.', afterChunks: 2 } }));
    const stream = anthropic.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    await expect(stream.finalMessage()).rejects.toThrow(/The model stream broke off/);
    expect(upstream.received).toHaveLength(1);
  });

  it('a message whose checksum does not match after the first chunk ends the caller\'s stream with its error event', async () => {
    const spoil = (frame: Buffer) => {
      frame[frame.length - 1]! ^= 1;
      return frame;
    };
    upstream.always(fakeBedrock({ ...FAKE, spoiled: { afterChunks: 3, spoil } }));
    const stream = anthropic.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    stream.on('text', (delta) => {
      text += delta;
    });
    await expect(stream.finalMessage()).rejects.toThrow(/broke off: Provider 'aws' sent an answer the gateway cannot read: an event-stream message whose checksum does not match/);
    // What came before the broken message reached the caller.
    expect(text.length).toBeGreaterThan(0);
    expect(CANNED_TEXT.startsWith(text)).toBe(true);
    expect(upstream.received).toHaveLength(1);
  });

  it('a message claiming a length past the gateway\'s limit before the first chunk fails the call, and is not retried as a busy provider would be', async () => {
    const spoil = (frame: Buffer) => {
      frame.writeUInt32BE(0xfffffff0, 0);
      return frame;
    };
    upstream.always(fakeBedrock({ ...FAKE, spoiled: { afterChunks: 0, spoil } }));
    const err = await anthropic.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(String(err)).toMatch(/cannot read: an event-stream message of 4294967280 bytes is larger than the limit/);
  });

  it("Bedrock's OpenAI-compatible Chat serves a model on protocols [\"chat\"], signed the same way", async () => {
    const chat = await openai.chat.completions.create({ model: 'gpt-oss', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]?.message.content).toBe(CANNED_TEXT);
    expect(upstream.last().url).toBe('/openai/v1/chat/completions');
    expect(body().model).toBe('openai.gpt-oss-120b-1:0');
  });
});

describe('bedrock refusing the signature', () => {
  it("a wrong secret: the fake's own signature differs, and the caller gets the operator's credential error", async () => {
    const env = awsEnv({ AWS_ACCESS_KEY_ID: AWS_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: 'not/the/right/secret0123456789abcdefXYZ' });
    const gw = await startGateway(config(upstream.url, { region: BEDROCK_REGION }), { env });
    try {
      const anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
      const err = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.APIError);
      expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
      expect(String((err as Error).message)).toContain("refused the gateway's AWS credential (InvalidSignatureException)");
      expect(upstream.last().headers.authorization).toContain('Credential=AKIAFAKEBEDROCK0001/');
    } finally {
      await gw.close();
    }
  });
});

describe('bedrock with a shared credentials file and a profile', () => {
  let dir: string;
  let gw: TestGateway;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mgw-bedrock-'));
    const credentials = join(dir, 'credentials');
    const configFile = join(dir, 'config');
    const { accessKeyId, secretAccessKey, sessionToken } = AWS_SESSION_CREDENTIALS;
    await writeFile(credentials, `[default]\naws_access_key_id = AKIAWRONGDEFAULT000\naws_secret_access_key = wrong\n\n[bedrock-test]\naws_access_key_id = ${accessKeyId}\naws_secret_access_key = ${secretAccessKey}\naws_session_token = ${sessionToken}\n`);
    await writeFile(configFile, `[profile bedrock-test]\nregion = ${BEDROCK_REGION}\n`);
    const env = awsEnv({ AWS_SHARED_CREDENTIALS_FILE: credentials, AWS_CONFIG_FILE: configFile });
    gw = await startGateway(config(upstream.url, { region: BEDROCK_REGION, profile: 'bedrock-test' }), { env });
  });
  afterAll(async () => {
    await gw.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("signs with the profile's session credentials", async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: CANNED_TEXT })]);
    expect(upstream.last().headers.authorization).toContain(`Credential=${AWS_SESSION_CREDENTIALS.accessKeyId}/`);
    expect(upstream.last().headers['x-amz-security-token']).toBe(AWS_SESSION_CREDENTIALS.sessionToken);
  });
});

describe('bedrock with a Bedrock API key', () => {
  it('sends the key as a bearer token and signs nothing', async () => {
    const env = awsEnv({ AWS_BEARER_TOKEN_BEDROCK: BEDROCK_API_KEY });
    const gw = await startGateway(config(upstream.url, { region: BEDROCK_REGION, apiKey: '${AWS_BEARER_TOKEN_BEDROCK}' }), { env });
    try {
      const anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
      const message = await anthropic.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
      expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: CANNED_TEXT })]);
      expect(upstream.last().headers.authorization).toBe(`Bearer ${BEDROCK_API_KEY}`);
      expect(upstream.last().headers['x-amz-date']).toBeUndefined();
    } finally {
      await gw.close();
    }
  });
});
