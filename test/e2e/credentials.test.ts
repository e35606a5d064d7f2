/**
 * A provider with several credentials, through the real gateway and the Anthropic SDK, against a
 * fake Anthropic that knows two keys, counts its calls per key and can be told to throttle one
 * (429 with retry-after) or refuse one (401). What the caller sees, what reached the upstream and
 * what the log names (the credential, never its key).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { cannedReply } from '../helpers/canned.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import { GATEWAY_KEY, startGateway, type TestGateway, waitForLines } from '../helpers/start-gateway.js';

const KEYS = { alpha: 'sk-ant-alpha-secret-000000000001', beta: 'sk-ant-beta-secret-0000000000002' } as const;
type Name = keyof typeof KEYS;

let upstream: FakeUpstream;
let gw: TestGateway;
let client: Anthropic;
let logFile: string;
/** What the fake does for each key, and the keys of the calls it answered, in order. */
let misbehaving: Partial<Record<Name, 'throttle' | 'refuse'>> = {};
let calls: Name[] = [];

const nameOf = (key: unknown): Name | undefined => (Object.keys(KEYS) as Name[]).find((n) => KEYS[n] === key);

function anthropicWithKeys(req: Received, res: ServerResponse): void {
  const name = nameOf(req.headers['x-api-key']);
  if (name === undefined) {
    sendJson(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    return;
  }
  calls.push(name);
  if (misbehaving[name] === 'throttle') {
    sendJson(res, 429, { type: 'error', error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' } }, { 'retry-after': '30' });
  } else if (misbehaving[name] === 'refuse') {
    sendJson(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
  } else cannedReply(req, res);
}

async function start(credentials: unknown[]): Promise<void> {
  await gw?.close();
  logFile = join(mkdtempSync(join(tmpdir(), 'mgw-credentials-')), 'log.jsonl');
  const config = {
    providers: { claude: { type: 'anthropic', baseUrl: upstream.url, credentials, retries: 2 } },
    models: { 'claude-test': { provider: 'claude' } },
    keyGroups: { dev: { keys: [GATEWAY_KEY] } },
  } as WrittenConfig;
  gw = await startGateway(config, { env: { ALPHA_KEY: KEYS.alpha, BETA_KEY: KEYS.beta }, logFile });
  client = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
}

const both = [
  { name: 'alpha', apiKey: '${ALPHA_KEY}' },
  { name: 'beta', apiKey: '${BETA_KEY}' },
];
let asked = 0;
/** A turn of `session`, or (none given) the opening of a new conversation. */
const ask = (session?: string) =>
  client.messages.create(
    { model: 'claude-test', max_tokens: 16, messages: [{ role: 'user', content: `hi ${asked++}` }] },
    session === undefined ? {} : { headers: { 'x-claude-code-session-id': session } },
  );

beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.reset();
  upstream.always(anthropicWithKeys);
  misbehaving = {};
  calls = [];
});

describe('several credentials per provider', () => {
  it('spreads requests by weight, names the credential in the log line and the log file, never its key', async () => {
    await start([
      { name: 'alpha', apiKey: '${ALPHA_KEY}', weight: 2 },
      { name: 'beta', apiKey: '${BETA_KEY}' },
    ]);
    for (let i = 0; i < 6; i++) await ask();
    expect(calls.filter((n) => n === 'alpha')).toHaveLength(4);
    expect(calls.filter((n) => n === 'beta')).toHaveLength(2);
    const lines = await waitForLines(gw, 6);
    expect(lines.filter((l) => / → claude\/claude-test with alpha /.test(l))).toHaveLength(4);
    expect(lines.filter((l) => / → claude\/claude-test with beta /.test(l))).toHaveLength(2);
    const output = gw.output.join('');
    for (const key of Object.values(KEYS)) expect(output).not.toContain(key);
    await expect.poll(() => readFileSync(logFile, 'utf8').trim().split('\n').length).toBe(6);
    const entries = readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { credential?: string });
    expect(entries.map((e) => e.credential).sort()).toEqual(['alpha', 'alpha', 'alpha', 'alpha', 'beta', 'beta']);
    for (const key of Object.values(KEYS)) expect(readFileSync(logFile, 'utf8')).not.toContain(key);
  });

  it('answers a 429 on one credential with the next, within the same request, and rests the throttled one', async () => {
    await start(both);
    misbehaving.alpha = 'throttle';
    for (let i = 0; i < 4; i++) expect((await ask()).content[0]).toMatchObject({ type: 'text' });
    // The throttled credential was tried once, then rested: every later request went with the other.
    expect(calls.filter((n) => n === 'alpha')).toHaveLength(1);
    expect(calls.filter((n) => n === 'beta')).toHaveLength(4);
  });

  it('keeps a session on one credential across its turns while it is healthy, and moves it when it is throttled', async () => {
    await start(both);
    await ask('session-a');
    const home = calls.at(-1)!;
    for (let i = 0; i < 4; i++) {
      await ask(); // other conversations take turns in between
      await ask('session-a');
      expect(calls.at(-1)).toBe(home);
    }
    misbehaving[home] = 'throttle';
    await ask('session-a');
    const moved = calls.at(-1)!;
    expect(moved).not.toBe(home);
    delete misbehaving[home];
    await ask('session-a');
    expect(calls.at(-1)).toBe(moved);
  });

  it('answers a refusal (401) with the next credential and takes the refused one out; when all are refused the caller gets 502 naming the config', async () => {
    await start(both);
    misbehaving.alpha = 'refuse';
    for (let i = 0; i < 4; i++) expect((await ask()).content[0]).toMatchObject({ type: 'text' });
    expect(calls.filter((n) => n === 'alpha')).toHaveLength(1);
    misbehaving.beta = 'refuse';
    const err = await ask().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect(String((err as Error).message)).toContain('providers.claude.credentials');
  });

  it('answers 429 with a retry-after when every credential rests', async () => {
    await start(both);
    misbehaving.alpha = 'throttle';
    misbehaving.beta = 'throttle';
    const err = await ask().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    const headers = (err as InstanceType<typeof Anthropic.APIError>).headers;
    expect(Number(headers?.get('retry-after'))).toBeGreaterThan(0);
  });
});
