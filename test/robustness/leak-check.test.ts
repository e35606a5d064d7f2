/**
 * Issue 6, the leak check: a varied set of requests (good, bad keys, refused
 * and failing upstreams, translated, streaming, broken streams, validation
 * errors) with distinctive gateway keys and provider credentials, on a plain
 * gateway and on one with --verbose and --log-file. Afterwards everything the
 * gateway printed and wrote, and everything every client received, is scanned
 * for every key and credential; and the upstream must never have seen a
 * gateway key.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { messageFrames } from '../helpers/canned.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Behaviour } from '../helpers/received.js';
import { startGateway, waitForLines, type TestGateway } from '../helpers/start-gateway.js';
import { sleep } from './helpers.js';

const tag = () => randomBytes(12).toString('hex');
/** Every secret in play, each distinctive enough to find anywhere. */
const S = {
  devKey: `mgw-LEAKCHECK-dev-${tag()}`,
  ciKey: `mgw-LEAKCHECK-ci-${tag()}`,
  wrongKey: `mgw-LEAKCHECK-wrong-${tag()}`,
  openai: `sk-LEAKCHECK-openai-${tag()}`,
  anthropic: `sk-ant-LEAKCHECK-${tag()}`,
  local: `LEAKCHECK-local-${tag()}`,
  localHeader: `LEAKCHECK-header-${tag()}`,
} as const;
const GATEWAY_KEYS = [S.devKey, S.ciKey, S.wrongKey];
const PROVIDER_SECRETS = [S.openai, S.anthropic, S.local, S.localHeader];
const ALL = [...GATEWAY_KEYS, ...PROVIDER_SECRETS];

/**
 * The secrets that appear in `text`, whole or as any 12-character piece of their random part
 * (a log that shows a dozen characters of a key leaks it as well; a 4-character mask does not).
 * Only the random 24-hex-digit tail is cut into pieces: the readable prefixes are shared.
 */
function secretsIn(text: string, secrets: readonly string[] = ALL): string[] {
  return secrets.filter((s) => {
    const random = s.slice(-24);
    for (let i = 0; i + 12 <= random.length; i++) if (text.includes(random.slice(i, i + 12))) return true;
    return false;
  });
}

function config(upstreamUrl: string): WrittenConfig {
  return {
    providers: {
      openai: { type: 'openai', baseUrl: `${upstreamUrl}/v1`, apiKey: '${LEAK_OPENAI}', retries: 0 },
      anthropic: { type: 'anthropic', baseUrl: upstreamUrl, apiKey: '${LEAK_ANTHROPIC}', retries: 0 },
      local: { type: 'openai-compatible', baseUrl: `${upstreamUrl}/v1`, apiKey: '${LEAK_LOCAL}', headers: { 'x-upstream-token': '${LEAK_HEADER}' }, retries: 0 },
      echo: { type: 'echo' },
    },
    models: {
      'gpt-test': { provider: 'openai', upstreamModel: 'gpt-upstream' },
      'claude-test': { provider: 'anthropic', upstreamModel: 'claude-upstream' },
      'local-chat': { provider: 'local' },
      echo: { provider: 'echo' },
    },
    keyGroups: {
      dev: { keys: [S.devKey], models: ['*'] },
      ci: { keys: [{ name: 'ci-bot', key: S.ciKey }], models: ['gpt-test'] },
    },
  } as WrittenConfig;
}
const env = { LEAK_OPENAI: S.openai, LEAK_ANTHROPIC: S.anthropic, LEAK_LOCAL: S.local, LEAK_HEADER: S.localHeader };

// ---------------------------------------------------------------------------------------------------------------------
// Upstream behaviours, including ones that misbehave with the credential they were sent.

const refuse401: Behaviour = (req, res) =>
  sendJson(res, 401, { error: { message: `Incorrect API key provided: ${String(req.headers.authorization ?? req.headers['x-api-key']).slice(-4).padStart(12, '*')}`, type: 'invalid_request_error', code: 'invalid_api_key' } });
const fail500: Behaviour = (_req, res) => sendJson(res, 500, { error: { message: 'The server had an error while processing your request.', type: 'server_error' } });
const limited429: Behaviour = (_req, res) => sendJson(res, 429, { error: { message: 'Rate limit reached', type: 'rate_limit_error' } }, { 'retry-after': '0', 'x-ratelimit-remaining-requests': '0' });
const breakMidStream: Behaviour = async (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(messageFrames('claude-upstream').slice(0, 4).join(''));
  await sleep(20);
  res.destroy();
};
/** A server that echoes the credential headers it got in its error message (some proxies do). */
const echoCredential500: Behaviour = (req, res) =>
  sendJson(res, 500, { error: { message: `upstream auth failed for headers ${JSON.stringify(req.headers)}`, type: 'server_error' } });
const echoCredential400: Behaviour = (req, res) =>
  sendJson(res, 400, { error: { message: `bad request; you sent authorization=${String(req.headers.authorization ?? req.headers['x-api-key'])}`, type: 'invalid_request_error' } });

interface Scenario {
  readonly name: string;
  readonly path: string;
  readonly method?: string;
  readonly headers: Record<string, string>;
  readonly body?: unknown;
  readonly upstream?: Behaviour;
  /** The status the client must get (the scan is the point; this keeps each scenario honest). */
  readonly status: number;
}

const bearer = (key: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${key}` });
const xApiKey = (key: string) => ({ 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' });
const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'hi' }], ...extra });
const msg = (model: string, extra: Record<string, unknown> = {}) => ({ model, max_tokens: 32, messages: [{ role: 'user', content: 'hi' }], ...extra });
const resp = (model: string, extra: Record<string, unknown> = {}) => ({ model, input: 'hi', ...extra });

const SCENARIOS: Scenario[] = [
  // Good, native and translated, streaming and not.
  { name: 'chat native', path: '/v1/chat/completions', headers: bearer(S.devKey), body: chat('gpt-test'), status: 200 },
  { name: 'chat native stream', path: '/v1/chat/completions', headers: bearer(S.devKey), body: chat('gpt-test', { stream: true }), status: 200 },
  { name: 'responses native stream', path: '/v1/responses', headers: bearer(S.devKey), body: resp('gpt-test', { stream: true }), status: 200 },
  { name: 'messages native', path: '/v1/messages', headers: xApiKey(S.devKey), body: msg('claude-test'), status: 200 },
  { name: 'messages native stream, key as Bearer', path: '/v1/messages', headers: { ...xApiKey(S.devKey), 'x-api-key': '', authorization: `Bearer ${S.devKey}` }, body: msg('claude-test', { stream: true }), status: 200 },
  { name: 'count_tokens native', path: '/v1/messages/count_tokens', headers: xApiKey(S.devKey), body: { model: 'claude-test', messages: [{ role: 'user', content: 'hi' }] }, status: 200 },
  { name: 'chat → messages', path: '/v1/chat/completions', headers: bearer(S.devKey), body: chat('claude-test', { stream: true }), status: 200 },
  { name: 'messages → responses', path: '/v1/messages', headers: xApiKey(S.devKey), body: msg('gpt-test'), status: 200 },
  { name: 'responses → compatible chat (credential header)', path: '/v1/responses', headers: bearer(S.devKey), body: resp('local-chat', { stream: true }), status: 200 },
  { name: 'messages → compatible chat', path: '/v1/messages', headers: xApiKey(S.devKey), body: msg('local-chat'), status: 200 },
  { name: 'ci key (named)', path: '/v1/chat/completions', headers: bearer(S.ciKey), body: chat('gpt-test'), status: 200 },
  { name: 'models list', path: '/v1/models', method: 'GET', headers: bearer(S.devKey), status: 200 },
  { name: 'models list, anthropic style', path: '/v1/models', method: 'GET', headers: xApiKey(S.devKey), status: 200 },
  { name: 'a key in the query string too', path: `/v1/chat/completions?api_key=${S.devKey}&beta=true`, headers: bearer(S.devKey), body: chat('echo'), status: 200 },
  // Refused by the gateway.
  { name: 'wrong key, Bearer', path: '/v1/chat/completions', headers: bearer(S.wrongKey), body: chat('gpt-test'), status: 401 },
  { name: 'wrong key, x-api-key', path: '/v1/messages', headers: xApiKey(S.wrongKey), body: msg('claude-test'), status: 401 },
  { name: 'wrong key on models', path: '/v1/models', method: 'GET', headers: bearer(S.wrongKey), status: 401 },
  { name: 'key in the wrong header for Chat', path: '/v1/chat/completions', headers: { 'content-type': 'application/json', 'x-api-key': S.devKey }, body: chat('gpt-test'), status: 401 },
  { name: 'a model outside the key group', path: '/v1/chat/completions', headers: bearer(S.ciKey), body: chat('claude-test'), status: 403 },
  { name: 'validation error', path: '/v1/messages', headers: xApiKey(S.devKey), body: { model: 'claude-test', messages: [] }, status: 400 },
  { name: 'malformed JSON', path: '/v1/responses', headers: bearer(S.devKey), body: '{"model":', status: 400 },
  { name: 'unknown model', path: '/v1/responses', headers: bearer(S.devKey), body: resp('nope'), status: 404 },
  // Refused or failing upstreams.
  { name: 'upstream refuses the credential (401)', path: '/v1/chat/completions', headers: bearer(S.devKey), body: chat('gpt-test'), upstream: refuse401, status: 502 },
  { name: 'upstream refuses the credential, translated', path: '/v1/chat/completions', headers: bearer(S.devKey), body: chat('claude-test'), upstream: refuse401, status: 502 },
  { name: 'upstream 500', path: '/v1/messages', headers: xApiKey(S.devKey), body: msg('claude-test'), upstream: fail500, status: 500 },
  { name: 'upstream 429', path: '/v1/responses', headers: bearer(S.devKey), body: resp('gpt-test'), upstream: limited429, status: 429 },
  { name: 'upstream breaks mid-stream', path: '/v1/messages', headers: xApiKey(S.devKey), body: msg('claude-test', { stream: true }), upstream: breakMidStream, status: 200 },
  { name: 'upstream breaks mid-stream, translated', path: '/v1/chat/completions', headers: bearer(S.devKey), body: chat('claude-test', { stream: true }), upstream: breakMidStream, status: 200 },
];

/** Upstreams that repeat the credential they were sent in their error message. */
const ECHOING: Scenario[] = [
  { name: 'openai 500 echoing its headers', path: '/v1/chat/completions', headers: bearer(S.devKey), body: chat('gpt-test'), upstream: echoCredential500, status: 500 },
  { name: 'anthropic 400 echoing its key', path: '/v1/messages', headers: xApiKey(S.devKey), body: msg('claude-test'), upstream: echoCredential400, status: 400 },
  { name: 'compatible 500 echoing its headers (custom header credential)', path: '/v1/chat/completions', headers: bearer(S.devKey), body: chat('local-chat'), upstream: echoCredential500, status: 500 },
];

interface Seen {
  readonly name: string;
  readonly status: number;
  readonly text: string;
}

let upstream: FakeUpstream;
let dir: string;
beforeAll(async () => {
  upstream = await startFakeUpstream();
  dir = mkdtempSync(join(tmpdir(), 'mgw-leak-'));
});
afterAll(async () => {
  await upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `scenarios` against `gw`; returns what each client received, headers included, as text. */
async function run(gw: TestGateway, scenarios: readonly Scenario[]): Promise<Seen[]> {
  const seen: Seen[] = [];
  for (const s of scenarios) {
    upstream.reset();
    if (s.upstream) upstream.always(s.upstream);
    const body = s.body === undefined ? null : typeof s.body === 'string' ? s.body : JSON.stringify(s.body);
    const res = await request(`${gw.url}${s.path}`, { method: (s.method ?? 'POST') as 'POST', headers: s.headers, body });
    const text = await res.body.text();
    seen.push({ name: s.name, status: res.statusCode, text: `${JSON.stringify(res.headers)}\n${text}` });
    for (const r of upstream.received) upstreamSeen.push({ name: s.name, text: `${JSON.stringify(r.headers)}\n${r.url}\n${r.body.toString('utf8')}` });
  }
  upstream.reset();
  return seen;
}
let upstreamSeen: { name: string; text: string }[] = [];

const FLAVOURS = [
  { name: 'a plain gateway', verbose: false, logFile: false },
  { name: 'a gateway with --verbose and --log-file', verbose: true, logFile: true },
] as const;

describe.each(FLAVOURS)('on $name', ({ verbose, logFile }) => {
  let gw: TestGateway;
  let seen: Seen[];
  const file = () => join(dir, `${verbose ? 'verbose' : 'plain'}.jsonl`);
  const written = () => (logFile ? readFileSync(file(), 'utf8') : '');

  beforeAll(async () => {
    upstreamSeen = [];
    gw = await startGateway(config(upstream.url), { env, verbose, ...(logFile ? { logFile: file() } : {}) });
    seen = await run(gw, SCENARIOS);
    await waitForLines(gw, SCENARIOS.length);
    await gw.close(); // flushes the log file
  });

  it('every scenario got the answer it should', () => {
    expect(seen.map((s) => `${s.name}: ${s.status}`)).toEqual(SCENARIOS.map((s) => `${s.name}: ${s.status}`));
  });

  it('no key or credential in anything a client received', () => {
    const leaks = seen.map((s) => ({ name: s.name, leaked: secretsIn(s.text) })).filter((s) => s.leaked.length > 0);
    expect(leaks).toEqual([]);
  });

  it('no key or credential in anything the gateway printed or wrote', () => {
    const printed = gw.output.join('');
    expect(printed.length).toBeGreaterThan(0);
    expect(secretsIn(printed)).toEqual([]);
    if (logFile) {
      const text = written();
      // The recording is there, bodies and headers included, so the scan means something.
      expect(text.split('\n').filter(Boolean)).toHaveLength(SCENARIOS.length);
      expect(text).toContain('"authorization":"[redacted]"');
      expect(secretsIn(text)).toEqual([]);
    }
    if (verbose) expect(printed).toContain('→ request headers');
  });

  it('no gateway key ever reached the upstream, and each provider got its own credential', () => {
    expect(upstreamSeen.filter((u) => secretsIn(u.text, GATEWAY_KEYS).length > 0).map((u) => u.name)).toEqual([]);
    // The scan finds a secret where there is one: each provider's credential went to its upstream.
    const all = upstreamSeen.map((u) => u.text).join('\n');
    expect(secretsIn(all, PROVIDER_SECRETS).sort()).toEqual([...PROVIDER_SECRETS].sort());
  });
});

describe('upstreams that echo the credential they were sent', () => {
  let gw: TestGateway;
  let seen: Seen[];
  const file = () => join(dir, 'echoing.jsonl');
  beforeAll(async () => {
    gw = await startGateway(config(upstream.url), { env, verbose: true, logFile: file() });
    seen = await run(gw, ECHOING);
    await waitForLines(gw, ECHOING.length);
    await gw.close();
  });

  const leaksTo = (names: readonly string[]) =>
    seen.filter((s) => names.includes(s.name)).map((s) => ({ name: s.name, leaked: secretsIn(s.text) })).filter((s) => s.leaked.length > 0);

  it('the client never sees an echoed apiKey', () => {
    expect(seen.map((s) => s.status)).toEqual(ECHOING.map((s) => s.status));
    expect(leaksTo(ECHOING.slice(0, 2).map((s) => s.name))).toEqual([]);
  });

  // Configured header values (Azure-style api-key credentials) are scrubbed like the apiKey.
  it('nor an echoed credential from the provider\'s configured headers', () => {
    expect(leaksTo([ECHOING[2]!.name])).toEqual([]);
  });

  const logged = () => `${gw.output.join('')}\n${readFileSync(file(), 'utf8')}`;
  it('the log (verbose output and log file) holds no echoed apiKey, nor any gateway key', () => {
    expect(logged()).toContain('upstream auth failed');
    expect(secretsIn(logged(), ALL.filter((s) => s !== S.localHeader))).toEqual([]);
  });

  it('nor the echoed header credential', () => {
    expect(secretsIn(logged(), [S.localHeader])).toEqual([]);
  });
});

it('the scan finds a secret, or a dozen characters of one, and not a four-character mask', () => {
  expect(secretsIn(`x ${S.openai} y`)).toEqual([S.openai]);
  expect(secretsIn(`key …${S.devKey.slice(-12)}`)).toEqual([S.devKey]);
  expect(secretsIn(`sk-…${S.openai.slice(-4)}`)).toEqual([]);
});
