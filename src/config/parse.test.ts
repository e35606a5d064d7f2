import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { parseConfig } from './parse.js';
import type { Config } from './types.js';
import { PROTOCOLS } from '../protocols/types.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const DIGEST = sha('test');

// biome-ignore lint/suspicious/noExplicitAny: the tests write configs as raw JSON, any shape, to see the parser refuse them
type Raw = Record<string, any>;

/** A small valid config; each test gets a fresh copy to change. */
const base = (): Raw => ({
  providers: {
    openai: { type: 'openai', apiKey: 'sk-test' },
    ollama: { type: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1' },
  },
  models: {
    'gpt-4.1': { provider: 'openai' },
    'qwen-*': { provider: 'ollama' },
  },
  keyGroups: {
    dev: { keys: ['dev-key'] },
  },
});

function issuesOf(raw: unknown, env: Record<string, string | undefined> = {}): readonly ConfigIssue[] {
  try {
    parseConfig(raw, { env, source: 'test.json' });
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const ENUM_PROTOCOLS = PROTOCOLS.map((p) => `"${p}"`).join(', ');
const ENUM_FEATURES = '"tools", "images", "streaming", "reasoning"';

describe('parseConfig: validation issues', () => {
  it.each<[string, (c: Raw) => void, ConfigIssue[]]>([
    ['unknown root field', (c) => (c.servr = {}), [{ path: 'servr', message: 'unknown field (did you mean "server"?)' }]],
    [
      'unknown provider field',
      (c) => (c.providers.openai.apiKy = 'x'),
      [{ path: 'providers.openai.apiKy', message: 'unknown field (did you mean "apiKey"?)' }],
    ],
    [
      'unknown field without a near match',
      (c) => (c.models['gpt-4.1'].colour = 'red'),
      [{ path: 'models.gpt-4.1.colour', message: 'unknown field' }],
    ],
    [
      'unknown field in a key object',
      (c) => (c.keyGroups.dev.keys = [{ nam: 'alice', key: 'k' }]),
      [{ path: 'keyGroups.dev.keys[0].nam', message: 'unknown field (did you mean "name"?)' }],
    ],
    [
      '$schema is only allowed at the root',
      (c) => (c.providers.openai.$schema = 'x'),
      [{ path: 'providers.openai.$schema', message: 'unknown field' }],
    ],
    ['missing providers', (c) => delete c.providers, [{ path: 'providers', message: 'required' }]],
    ['providers not an object', (c) => (c.providers = []), [{ path: 'providers', message: 'expected an object, got an array' }]],
    [
      'missing provider type',
      (c) => delete c.providers.openai.type,
      [{ path: 'providers.openai.type', message: 'required: one of "openai", "anthropic", "openai-compatible", "echo", "azure-openai", "foundry", "vertex", "bedrock", "gemini"' }],
    ],
    [
      'unknown provider type',
      (c) => (c.providers.openai.type = 'azure'),
      [
        {
          path: 'providers.openai.type',
          message: 'must be one of "openai", "anthropic", "openai-compatible", "echo", "azure-openai", "foundry", "vertex", "bedrock", "gemini" (got "azure")',
        },
      ],
    ],
    [
      'baseUrl not a URL',
      (c) => (c.providers.ollama.baseUrl = 'localhost:11434'),
      [{ path: 'providers.ollama.baseUrl', message: 'must be an absolute http(s) URL (got "localhost:11434")' }],
    ],
    [
      'baseUrl with another scheme',
      (c) => (c.providers.ollama.baseUrl = 'ftp://example.com/v1'),
      [{ path: 'providers.ollama.baseUrl', message: 'must be an absolute http(s) URL (got "ftp://example.com/v1")' }],
    ],
    ['port too big', (c) => (c.server = { port: 65536 }), [{ path: 'server.port', message: 'must be at most 65535' }]],
    ['port negative', (c) => (c.server = { port: -1 }), [{ path: 'server.port', message: 'must be at least 0' }]],
    ['port not an integer', (c) => (c.server = { port: 80.5 }), [{ path: 'server.port', message: 'must be an integer (got 80.5)' }]],
    [
      'port as a string',
      (c) => (c.server = { port: '8787' }),
      [{ path: 'server.port', message: 'expected a number, got "8787"' }],
    ],
    [
      'maxBodyBytes zero',
      (c) => (c.server = { maxBodyBytes: 0 }),
      [{ path: 'server.maxBodyBytes', message: 'must be greater than 0' }],
    ],
    [
      'timeout not positive',
      (c) => (c.providers.openai.timeouts = { idleMs: -5 }),
      [{ path: 'providers.openai.timeouts.idleMs', message: 'must be greater than 0' }],
    ],
    [
      'unknown timeout',
      (c) => (c.providers.openai.timeouts = { readMs: 5 }),
      [{ path: 'providers.openai.timeouts.readMs', message: 'unknown field' }],
    ],
    [
      'empty provider protocols',
      (c) => (c.providers.openai.protocols = []),
      [{ path: 'providers.openai.protocols', message: 'must not be empty' }],
    ],
    [
      'unknown provider protocol',
      (c) => (c.providers.openai.protocols = ['chat', 'grpc']),
      [{ path: 'providers.openai.protocols[1]', message: `must be one of ${ENUM_PROTOCOLS} (got "grpc")` }],
    ],
    [
      'bad header name',
      (c) => (c.providers.openai.headers = { 'X Bad': 'v' }),
      [{ path: 'providers.openai.headers["X Bad"]', message: 'not a valid HTTP header name' }],
    ],
    [
      'header value with a line break',
      (c) => (c.providers.openai.headers = { 'X-Ok': 'a\r\nInjected: 1' }),
      [{ path: 'providers.openai.headers.X-Ok', message: 'header values must not contain line breaks' }],
    ],
    [
      'header value not a string',
      (c) => (c.providers.openai.headers = { 'X-Num': 1 }),
      [{ path: 'providers.openai.headers.X-Num', message: 'expected a string, got 1' }],
    ],
    [
      'unknown model feature',
      (c) => (c.models['gpt-4.1'].features = ['tool']),
      [{ path: 'models.gpt-4.1.features[0]', message: `must be one of ${ENUM_FEATURES} (got "tool")` }],
    ],
    [
      'model protocols not an array',
      (c) => (c.models['gpt-4.1'].protocols = 'chat'),
      [{ path: 'models.gpt-4.1.protocols', message: 'expected an array, got "chat"' }],
    ],
    ['model without provider', (c) => delete c.models['gpt-4.1'].provider, [{ path: 'models.gpt-4.1.provider', message: 'required' }]],
    [
      'maxOutputTokens zero',
      (c) => (c.models['gpt-4.1'].maxOutputTokens = 0),
      [{ path: 'models.gpt-4.1.maxOutputTokens', message: 'must be greater than 0' }],
    ],
    [
      'model references an unknown provider',
      (c) => (c.models['gpt-4.1'].provider = 'opanai'),
      [{ path: 'models.gpt-4.1.provider', message: 'unknown provider "opanai" (configured: openai, ollama)' }],
    ],
    [
      'openai-compatible without baseUrl',
      (c) => delete c.providers.ollama.baseUrl,
      [{ path: 'providers.ollama.baseUrl', message: 'required for openai-compatible providers' }],
    ],
    [
      'bad glob in a model name',
      (c) => (c.models['gpt-[45]'] = { provider: 'openai' }),
      [
        {
          path: 'models["gpt-[45]"]',
          message: 'bad glob "gpt-[45]": only * (any run of characters) and ? (one character) are supported; [ ] { } and ** are not',
        },
      ],
    ],
    [
      '** in a model name',
      (c) => (c.models['claude/**'] = { provider: 'openai' }),
      [{ path: 'models.claude/**', message: expect.stringContaining('bad glob "claude/**"') }],
    ],
    [
      'model name with whitespace',
      (c) => (c.models['gpt 4'] = { provider: 'openai' }),
      [{ path: 'models["gpt 4"]', message: '"gpt 4" contains whitespace' }],
    ],
    ['empty model name', (c) => (c.models[''] = { provider: 'openai' }), [{ path: 'models[""]', message: 'name must not be empty' }]],
    [
      'provider id with whitespace',
      (c) => (c.providers['my provider'] = { type: 'echo' }),
      [{ path: 'providers["my provider"]', message: '"my provider" contains whitespace' }],
    ],
    [
      'key group exact model that matches nothing',
      (c) => (c.keyGroups.dev.models = ['gpt-4.1', 'qwen-coder', 'gpt-5']),
      [{ path: 'keyGroups.dev.models[2]', message: '"gpt-5" matches no configured model (neither an exact name nor a glob)' }],
    ],
    [
      'fallback that matches no model',
      (c) => (c.models['gpt-4.1'].fallbacks = ['qwen-coder', 'gpt-9']),
      [{ path: 'models.gpt-4.1.fallbacks[1]', message: '"gpt-9" matches no configured model (neither an exact name nor a glob)' }],
    ],
    [
      'fallback to itself',
      (c) => (c.models['gpt-4.1'].fallbacks = ['gpt-4.1']),
      [{ path: 'models.gpt-4.1.fallbacks[0]', message: 'a model cannot fall back to itself' }],
    ],
    [
      'fallback given as a glob',
      (c) => (c.models['gpt-4.1'].fallbacks = ['qwen-*']),
      [{ path: 'models.gpt-4.1.fallbacks[0]', message: '"qwen-*" is a glob; a fallback names one model' }],
    ],
    [
      'retries out of range',
      (c) => (c.providers.openai.retries = 11),
      [{ path: 'providers.openai.retries', message: expect.stringContaining('10') }],
    ],
    [
      'limits with an unknown field',
      (c) => (c.keyGroups.dev.limits = { requestsPerHour: 5 }),
      [{ path: 'keyGroups.dev.limits.requestsPerHour', message: 'unknown field (did you mean "requestsPerMinute"?)' }],
    ],
    [
      'key group bad glob',
      (c) => (c.keyGroups.dev.models = ['{a,b}']),
      [{ path: 'keyGroups.dev.models[0]', message: expect.stringContaining('bad glob "{a,b}"') }],
    ],
    [
      'key group empty models list',
      (c) => (c.keyGroups.dev.models = []),
      [{ path: 'keyGroups.dev.models', message: 'must not be empty' }],
    ],
    [
      'key group unknown protocol',
      (c) => (c.keyGroups.dev.protocols = ['completions']),
      [{ path: 'keyGroups.dev.protocols[0]', message: `must be one of ${ENUM_PROTOCOLS} (got "completions")` }],
    ],
    ['empty key', (c) => (c.keyGroups.dev.keys = ['']), [{ path: 'keyGroups.dev.keys[0]', message: 'key must not be empty' }]],
    [
      'malformed sha256 key',
      (c) => (c.keyGroups.dev.keys = ['sha256:abc']),
      [{ path: 'keyGroups.dev.keys[0]', message: 'a "sha256:" key must be followed by exactly 64 hex digits' }],
    ],
    [
      'key of the wrong type',
      (c) => (c.keyGroups.dev.keys = [42]),
      [{ path: 'keyGroups.dev.keys[0]', message: 'expected a string or an object, got 42' }],
    ],
    [
      'key object without key',
      (c) => (c.keyGroups.dev.keys = [{ name: 'alice' }]),
      [{ path: 'keyGroups.dev.keys[0].key', message: 'required' }],
    ],
    [
      'duplicate key in one group',
      (c) => (c.keyGroups.dev.keys = ['a', 'b', { name: 'again', key: 'a' }]),
      [
        {
          path: 'keyGroups.dev.keys[2]',
          message: 'duplicate key: the same key is already in group "dev" (keyGroups.dev.keys[0])',
        },
      ],
    ],
    [
      'duplicate key across groups, plain in one and sha256 in the other',
      (c) => {
        c.keyGroups.dev.keys = ['test'];
        c.keyGroups.ci = { keys: [`SHA256:${DIGEST.toUpperCase()}`] };
      },
      [
        {
          path: 'keyGroups.ci.keys[0]',
          message:
            'duplicate key: the same key is already in group "dev" (keyGroups.dev.keys[0]); a key may belong to one group only, here "ci"',
        },
      ],
    ],
  ])('%s', (_name, mutate, expected) => {
    const raw = base();
    mutate(raw);
    expect(issuesOf(raw)).toEqual(expected);
  });

  it.each([
    [[], 'an array'],
    [null, 'null'],
    ['text', '"text"'],
  ])('root %j is reported at the root', (raw, got) => {
    expect(issuesOf(raw)).toEqual([{ path: '', message: `expected an object, got ${got}` }]);
  });

  it('reports environment and schema issues together', () => {
    const raw = base();
    raw.providers.openai.apiKey = '${OPENAI_API_KEY}';
    raw.server = { port: 'x' };
    raw.models['gpt-4.1'].features = ['vision'];
    raw.keyGroups.dev.keys = ['${GATEWAY_KEY}', ''];
    expect(issuesOf(raw)).toEqual([
      { path: 'providers.openai.apiKey', message: 'environment variable OPENAI_API_KEY is not set' },
      { path: 'keyGroups.dev.keys[0]', message: 'environment variable GATEWAY_KEY is not set' },
      { path: 'server.port', message: 'expected a number, got "x"' },
      { path: 'models.gpt-4.1.features[0]', message: `must be one of ${ENUM_FEATURES} (got "vision")` },
      { path: 'keyGroups.dev.keys[1]', message: 'key must not be empty' },
    ]);
  });

  it('reports environment issues and every rule issue together', () => {
    const raw = base();
    raw.providers.openai.apiKey = '${OPENAI_API_KEY}';
    raw.models['gpt-4.1'].provider = 'nope';
    delete raw.providers.ollama.baseUrl;
    raw.keyGroups.dev.models = ['missing'];
    raw.keyGroups.ci = { keys: ['dev-key'] };
    expect(issuesOf(raw).map((i) => i.path)).toEqual([
      'providers.openai.apiKey',
      'models.gpt-4.1.provider',
      'providers.ollama.baseUrl',
      'keyGroups.dev.models[0]',
      'keyGroups.ci.keys[0]',
    ]);
  });

  it('reports schema and rule issues in one round, the rules checked on what the schema took', () => {
    const raw = base();
    raw.server = { port: 'x' };
    raw.providers.broken = { type: 'openai-compatible', baseUrl: 5 };
    raw.models['gpt-4.1'].provider = 'nope';
    raw.models.local = { provider: 'broken' };
    raw.keyGroups.ci = { keys: ['dev-key'] };
    expect(issuesOf(raw).map((i) => `${i.path}: ${i.message}`)).toEqual([
      'server.port: expected a number, got "x"',
      expect.stringMatching(/^providers\.broken\.baseUrl: /),
      // The rules, run on the rest: a model's unknown provider, a key given twice; not "unknown provider broken".
      expect.stringMatching(/^models\.gpt-4\.1\.provider: unknown provider "nope"/),
      expect.stringMatching(/^keyGroups\.ci\.keys\[0\]: /),
    ]);
  });

  it('does not also complain about the unresolved text of a missing variable', () => {
    const raw = base();
    raw.providers.ollama.baseUrl = '${OLLAMA_URL}';
    expect(issuesOf(raw)).toEqual([
      { path: 'providers.ollama.baseUrl', message: 'environment variable OLLAMA_URL is not set' },
    ]);
  });

  it('treats an empty variable as set, but an empty key is still an issue', () => {
    const raw = base();
    raw.providers.openai.apiKey = '${EMPTY}';
    raw.keyGroups.dev.keys = ['${EMPTY}'];
    expect(issuesOf(raw, { EMPTY: '' })).toEqual([{ path: 'keyGroups.dev.keys[0]', message: 'key must not be empty' }]);
  });

  it('names the source in the error message', () => {
    expect(() => parseConfig({ providers: {}, models: {}, x: 1 }, { env: {}, source: '/etc/gw.json' })).toThrow(
      /Invalid configuration in \/etc\/gw\.json:\n {2}- x: unknown field/,
    );
  });
});

describe('parseConfig: defaults', () => {
  const config = parseConfig(
    {
      providers: {
        openai: { type: 'openai' },
        anthropic: { type: 'anthropic', apiKey: '${ANTHROPIC_API_KEY}' },
        local: { type: 'openai-compatible', baseUrl: 'http://localhost:8080/v1///', protocols: ['chat', 'responses'] },
        echo: { type: 'echo', baseUrl: 'http://ignored.example', apiKey: 'ignored' },
      },
      models: { 'gpt-4.1': { provider: 'openai' } },
    },
    { env: { ANTHROPIC_API_KEY: 'sk-ant' } },
  );

  it('applies server defaults', () => {
    expect(config.server).toEqual({
      host: '127.0.0.1',
      port: 8787,
      maxBodyBytes: 32 * 1024 * 1024,
      maxConcurrentRequests: 1024,
      maxBufferedBytes: 512 * 1024 * 1024,
      headersTimeoutMs: 30_000,
      requestTimeoutMs: 300_000,
      keepAliveTimeoutMs: 65_000,
      ledger: true,
      maxConnections: undefined,
      maxResponseBytes: 64 * 1024 * 1024,
      responsesStoreBytes: 64 * 1024 * 1024,
      responsesStoreTtlMs: 24 * 60 * 60 * 1000,
      allowedHosts: [],
      authFailuresPerMinute: 30,
      maxTools: 1024,
      maxMessages: 100_000,
      maxContentBlocks: 100_000,
    });
  });

  it.each([
    ['openai', 'https://api.openai.com/v1', ['responses', 'chat'], undefined],
    ['anthropic', 'https://api.anthropic.com', ['messages'], 'sk-ant'],
    ['local', 'http://localhost:8080/v1', ['chat', 'responses'], undefined],
    ['echo', '', ['responses', 'chat', 'messages', 'gemini'], undefined],
  ])('provider %s: baseUrl %j, protocols %j, apiKey %j', (id, baseUrl, protocols, apiKey) => {
    const p = config.providers.get(id);
    expect(p?.id).toBe(id);
    expect(p?.baseUrl).toBe(baseUrl);
    expect([...(p?.protocols ?? [])]).toEqual(protocols);
    expect(p?.apiKey).toBe(apiKey);
    expect(p?.headers).toEqual({});
    expect(p?.timeouts).toEqual({ connectMs: 10_000, headersMs: 600_000, idleMs: 300_000, totalMs: 1_800_000 });
    expect(p?.retries).toBe(2);
  });

  it('keeps partial timeouts and headers', () => {
    const c = parseConfig(
      {
        providers: { o: { type: 'openai', headers: { 'OpenAI-Organization': 'org-1' }, timeouts: { idleMs: 5 } } },
        models: {},
      },
      { env: {} },
    );
    expect(c.providers.get('o')?.timeouts).toEqual({ connectMs: 10_000, headersMs: 600_000, idleMs: 5, totalMs: 1_800_000 });
    expect(c.providers.get('o')?.headers).toEqual({ 'OpenAI-Organization': 'org-1' });
  });

  it('lowercases server.allowedHosts, which match in any case', () => {
    const c = parseConfig({ server: { allowedHosts: ['Gateway.LAN', 'FD00::1', '[FD00::2]'] }, providers: {}, models: {} }, { env: {} });
    expect(c.server.allowedHosts).toEqual(['gateway.lan', 'fd00::1', '[fd00::2]']);
  });

  it('applies model defaults', () => {
    const m = config.models.get('gpt-4.1');
    expect(m).toEqual({
      pattern: 'gpt-4.1',
      isGlob: false,
      provider: 'openai',
      upstreamModel: undefined,
      protocols: new Set(['responses', 'chat', 'messages', 'gemini']),
      features: new Set(['tools', 'images', 'streaming', 'reasoning']),
      description: undefined,
      maxOutputTokens: undefined,
      displayName: undefined,
      contextWindow: undefined,
      countTokens: 'estimate',
      fallbacks: [],
    });
  });

  it('defaults keyGroups to none', () => {
    expect(config.keyGroups.size).toBe(0);
    expect(config.keys.size).toBe(0);
  });

  it('shares nothing without state, and applies state defaults with a Redis URL from the environment', () => {
    expect(config.state).toBeUndefined();
    const shared = parseConfig(
      { providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, state: { redis: '${REDIS_URL}' } },
      { env: { REDIS_URL: 'rediss://:pw@redis.internal:6380/1' } },
    );
    expect(shared.state).toEqual({
      redis: 'rediss://:pw@redis.internal:6380/1',
      keyPrefix: 'model-gateway:',
      onRedisDown: { limits: 'open', budgets: 'closed' },
      commandTimeoutMs: 500,
    });
  });

  it('does not repeat a refused Redis URL, which may hold a password', () => {
    const bad = (redis: string) => () => parseConfig({ providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, state: { redis } }, { env: {} });
    for (const url of ['http://user:hunter2@redis:6379', 'redis://:hunter2@redis:6379/0?password=hunter2', 'redis://:hunter2@']) {
      expect(bad(url)).toThrow(/state\.redis: must be a redis:\/\/ or rediss:\/\//);
      expect(bad(url)).not.toThrow(/hunter2/);
    }
  });

  it('applies key group defaults', () => {
    const c = parseConfig({ providers: {}, models: {}, keyGroups: { g: { keys: [] } } }, { env: {} });
    expect(c.keyGroups.get('g')).toEqual({
      name: 'g',
      keys: [],
      models: ['*'],
      protocols: new Set(['responses', 'chat', 'messages', 'gemini']),
      features: new Set(['tools', 'images', 'streaming', 'reasoning']),
      limits: {},
      inspect: false,
    });
  });

  it('applies the inspector defaults, and reads inspector.keep, inspector.memoryMiB, inspector.history and inspector.bodiesPerSecond', () => {
    expect(parseConfig({ providers: {}, models: {} }, { env: {} }).inspector).toEqual({ keep: 300, memoryMiB: 64, history: true, bodiesPerSecond: 5 });
    const c = parseConfig({ providers: {}, models: {}, inspector: { keep: 20, memoryMiB: 4, history: false, bodiesPerSecond: 0 } }, { env: {} });
    expect(c.inspector).toEqual({ keep: 20, memoryMiB: 4, history: false, bodiesPerSecond: 0 });
    expect(() => parseConfig({ providers: {}, models: {}, inspector: { keep: 0 } }, { env: {} })).toThrow(/inspector\.keep/);
    expect(() => parseConfig({ providers: {}, models: {}, inspector: { bodiesPerSecond: -1 } }, { env: {} })).toThrow(/inspector\.bodiesPerSecond/);
  });

  it('splits exact models from globs and orders globs most specific first', () => {
    const c = parseConfig(
      {
        providers: { e: { type: 'echo' } },
        models: {
          '*': { provider: 'e' },
          'claude-*': { provider: 'e' },
          exact: { provider: 'e', upstreamModel: 'up', description: 'd', maxOutputTokens: 10 },
          'c*': { provider: 'e' },
          'claude-?-*': { provider: 'e' },
          'claude-3-*': { provider: 'e' },
        },
      },
      { env: {} },
    );
    expect([...c.models.keys()]).toEqual(['exact']);
    expect(c.models.get('exact')).toMatchObject({ upstreamModel: 'up', description: 'd', maxOutputTokens: 10 });
    expect(c.modelGlobs.map((m) => m.pattern)).toEqual(['claude-3-*', 'claude-?-*', 'claude-*', 'c*', '*']);
    expect(c.modelGlobs.every((m) => m.isGlob)).toBe(true);
  });
});

describe('parseConfig: keys', () => {
  const plain = 'mgw-super-secret-plain-key';
  const config = parseConfig(
    {
      providers: { e: { type: 'echo' } },
      models: { echo: { provider: 'e' } },
      keyGroups: {
        dev: { keys: [plain, { name: 'alice', key: `sha256:${DIGEST.toUpperCase()}` }] },
        ci: { keys: [{ key: '${CI_KEY}' }], models: ['echo'], protocols: ['chat'], features: ['streaming'] },
      },
    },
    { env: { CI_KEY: 'ci-secret' } },
  );

  it('hashes a plain key and accepts a sha256 digest in any case', () => {
    expect(config.keyGroups.get('dev')?.keys).toEqual([
      { digest: sha(plain), id: sha(plain).slice(0, 8), name: undefined, group: 'dev' },
      { digest: DIGEST, id: DIGEST.slice(0, 8), name: 'alice', group: 'dev' },
    ]);
    expect(config.keyGroups.get('ci')?.keys).toEqual([
      { digest: sha('ci-secret'), id: sha('ci-secret').slice(0, 8), name: undefined, group: 'ci' },
    ]);
  });

  it('indexes every key by digest', () => {
    expect([...config.keys.keys()].sort()).toEqual([sha(plain), DIGEST, sha('ci-secret')].sort());
    expect(config.keys.get(DIGEST)?.group).toBe('dev');
    expect(config.keys.get(sha('ci-secret'))?.group).toBe('ci');
  });

  it('keeps group permissions', () => {
    const ci = config.keyGroups.get('ci');
    expect(ci?.models).toEqual(['echo']);
    expect([...(ci?.protocols ?? [])]).toEqual(['chat']);
    expect([...(ci?.features ?? [])]).toEqual(['streaming']);
  });

  it('keeps no plain key text anywhere in the config', () => {
    const text = stringify(config);
    expect(text).toContain(sha(plain));
    expect(text).not.toContain(plain);
    expect(text).not.toContain('ci-secret');
  });
});

function stringify(config: Config): string {
  return JSON.stringify(config, (_key, value: unknown) =>
    value instanceof Map ? [...value.entries()] : value instanceof Set ? [...value] : value,
  );
}
