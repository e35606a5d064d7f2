/**
 * Temporary AWS credentials refreshed while the gateway runs. The credential chain finds a
 * container credentials endpoint (`AWS_CONTAINER_CREDENTIALS_FULL_URI`, with the authorization
 * token EKS Pod Identity and ECS give) on loopback; each fetch there issues new keys with their
 * `Expiration`, and the fake Bedrock accepts a key only while it is unexpired. The chain keeps what
 * it fetched and, from five minutes before the `Expiration`, fetches again in the background while
 * the held keys still sign; keys already past it are dropped and the call waits for new ones.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { CANNED_TEXT } from '../helpers/canned.js';
import { type AwsCredentialSet, BEDROCK_REGION, fakeBedrock } from '../helpers/fake-bedrock.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';

const MODEL_ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const CONTAINER_TOKEN = 'fake-pod-identity-token-0123456789';
/** How far ahead of an expiry the chain fetches new keys: what the AWS SDK's chain is built with. */
const REFRESH_WINDOW_MS = 5 * 60_000;

let bedrock: FakeUpstream;
let creds: FakeUpstream;
let scratch: string;
/** Every key set the endpoint issued, in order: the fake Bedrock accepts those not yet expired. */
const issued: AwsCredentialSet[] = [];
/** The lifetime of the next keys the endpoint issues. */
let lifetimeMs = 0;

beforeAll(async () => {
  [bedrock, creds] = await Promise.all([startFakeUpstream(), startFakeUpstream()]);
  scratch = mkdtempSync(join(tmpdir(), 'mgw-bedrock-creds-'));
  // The container credentials endpoint, as ECS and EKS Pod Identity serve it.
  creds.always((req, res) => {
    if (req.method !== 'GET' || req.url !== '/creds') return sendJson(res, 404, { Code: 'NotFound', Message: `no ${req.url}` });
    if (req.headers.authorization !== CONTAINER_TOKEN) return sendJson(res, 401, { Code: 'AccessDenied', Message: 'the authorization token is not valid' });
    const n = issued.length + 1;
    const set: AwsCredentialSet = {
      accessKeyId: `ASIAFAKEROTATING${String(n).padStart(4, '0')}`,
      secretAccessKey: `fake/rotating+secret/${n}-0123456789abcdefXYZ`,
      sessionToken: `FwoGZXIvYXdzEFAKErotating${n}`,
      expiration: new Date(Date.now() + lifetimeMs),
    };
    issued.push(set);
    sendJson(res, 200, {
      AccessKeyId: set.accessKeyId,
      SecretAccessKey: set.secretAccessKey,
      Token: set.sessionToken,
      Expiration: set.expiration!.toISOString(),
      RoleArn: 'arn:aws:iam::123456789012:role/model-gateway',
    });
  });
  bedrock.always(fakeBedrock({ credentials: issued }));
});
afterAll(async () => {
  await Promise.all([bedrock.close(), creds.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

let gw: TestGateway;
beforeEach(async () => {
  issued.length = 0;
  bedrock.received.length = 0;
  creds.received.length = 0;
  // Only the container endpoint: no keys in the environment, no shared files, no instance metadata.
  const aws: Record<string, string | undefined> = {
    AWS_ACCESS_KEY_ID: undefined,
    AWS_SECRET_ACCESS_KEY: undefined,
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    AWS_WEB_IDENTITY_TOKEN_FILE: undefined,
    AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: undefined,
    AWS_SHARED_CREDENTIALS_FILE: join(scratch, 'no-credentials'),
    AWS_CONFIG_FILE: join(scratch, 'no-config'),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONTAINER_CREDENTIALS_FULL_URI: `${creds.url}/creds`,
    AWS_CONTAINER_AUTHORIZATION_TOKEN: CONTAINER_TOKEN,
  };
  for (const [name, value] of Object.entries(aws)) vi.stubEnv(name, value);
  // A gateway per case: each provider's chain is made on its first call and keeps what it fetched.
  gw = await startGateway({
    providers: { bedrock: { type: 'bedrock', region: BEDROCK_REGION, baseUrl: bedrock.url, retries: 0 } },
    models: { 'claude-sonnet-4-5': { provider: 'bedrock', upstreamModel: MODEL_ID } },
    keyGroups: { dev: { keys: [GATEWAY_KEY] } },
  } as unknown as WrittenConfig);
});
afterEach(async () => {
  await gw.close();
  vi.unstubAllEnvs();
});

/** One whole request through the gateway; its answer's text. */
async function ask(): Promise<string> {
  const client = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
  const message = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
  return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** The access key each Bedrock call was signed with, in order. */
const signedWith = () => bedrock.received.map((r) => /Credential=([^/]+)\//.exec(String(r.headers.authorization))?.[1]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('bedrock credentials from a container endpoint', () => {
  it('keys are reused while fresh; near their expiry new ones are fetched while the held ones still sign', async () => {
    // Fresh for a second and a half more than the chain's window: then inside it.
    lifetimeMs = REFRESH_WINDOW_MS + 1500;
    expect(await ask()).toBe(CANNED_TEXT);
    expect(await ask()).toBe(CANNED_TEXT);
    expect(creds.received).toHaveLength(1);
    expect(creds.received[0]!.headers.authorization).toBe(CONTAINER_TOKEN);

    await sleep(1700);
    // Inside the window: this call still signs with the held keys and starts the fetch of new ones.
    expect(await ask()).toBe(CANNED_TEXT);
    await vi.waitFor(() => expect(issued).toHaveLength(2));
    expect(await ask()).toBe(CANNED_TEXT);
    expect(await ask()).toBe(CANNED_TEXT);

    const [first, second] = issued.map((c) => c.accessKeyId);
    expect(signedWith()).toEqual([first, first, first, second, second]);
    expect(bedrock.received.at(-1)!.headers['x-amz-security-token']).toBe(issued[1]!.sessionToken);
    // The new keys are good for a while: no further fetch.
    expect(creds.received).toHaveLength(2);
  });

  it('keys past their expiry are never sent: the next call waits for new ones, and Bedrock takes them', async () => {
    lifetimeMs = 1000;
    expect(await ask()).toBe(CANNED_TEXT);
    const used = signedWith()[0];
    expect(used).toBe(issued[0]!.accessKeyId);

    // The keys expire while the gateway is idle; Bedrock would refuse them now.
    await sleep(1300);
    expect(issued.every((c) => c.expiration!.getTime() < Date.now())).toBe(true);
    expect(await ask()).toBe(CANNED_TEXT);

    const last = signedWith().at(-1);
    expect(last).not.toBe(used);
    const lastSet = issued.find((c) => c.accessKeyId === last)!;
    // Signed with keys issued after the old ones expired, valid when they were sent.
    expect(lastSet.expiration!.getTime()).toBeGreaterThan(issued[0]!.expiration!.getTime());
    expect(bedrock.received).toHaveLength(2);
  });

  it('the fake Bedrock refuses expired keys as AWS does, and the caller gets the operator credential error', async () => {
    // A chain that held expired keys would fail like this: shown by signing with keys whose time has passed.
    lifetimeMs = 60 * 60_000;
    expect(await ask()).toBe(CANNED_TEXT);
    const held = issued[0]!;
    issued[0] = { ...held, expiration: new Date(Date.now() - 1) };
    const err = await ask().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect(String((err as Error).message)).toContain("refused the gateway's AWS credential (ExpiredTokenException)");
  });
});
