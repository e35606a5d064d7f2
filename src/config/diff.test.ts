import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { diffConfig, type ConfigChange } from './diff.js';
import { parseConfig } from './parse.js';

// biome-ignore lint/suspicious/noExplicitAny: the tests write configs as raw JSON, any shape, to see the parser refuse them
type Raw = Record<string, any>;

const ALICE_KEY = 'alice-secret-key-0001';
const BOB_KEY = 'bob-secret-key-0002';
const idOf = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 8);

/** A small valid config; each case edits a fresh copy. */
const base = (): Raw => ({
  server: { host: '127.0.0.1', port: 8787 },
  providers: {
    openai: { type: 'openai', apiKey: 'sk-openai-old-secret', headers: { 'OpenAI-Organization': 'org-old' } },
    ollama: { type: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1' },
    echo: { type: 'echo' },
  },
  models: {
    'gpt-4.1': { provider: 'openai', features: ['tools', 'streaming'] },
    'qwen-*': { provider: 'ollama' },
    echo: { provider: 'echo' },
  },
  keyGroups: {
    dev: { keys: [{ name: 'alice', key: ALICE_KEY }], models: ['*'] },
    ci: { keys: [BOB_KEY], models: ['gpt-4.1'], protocols: ['chat'] },
  },
});

const cases: [string, (c: Raw) => void, ConfigChange[]][] = [
  ['nothing', () => {}, []],
  [
    'a key added, by name',
    (c) => c.keyGroups.dev.keys.push({ name: 'carol', key: 'carol-secret-key-0003' }),
    [{ section: 'key', op: 'added', name: 'dev:carol', fields: [] }],
  ],
  [
    'an unnamed key removed, by its short id',
    (c) => (c.keyGroups.ci.keys = ['ci-replacement-key']),
    [
      { section: 'key', op: 'removed', name: `ci:${idOf(BOB_KEY)}`, fields: [] },
      { section: 'key', op: 'added', name: `ci:${idOf('ci-replacement-key')}`, fields: [] },
    ],
  ],
  [
    'the same key written as its sha256 form is no change',
    (c) => (c.keyGroups.ci.keys = [`sha256:${createHash('sha256').update(BOB_KEY).digest('hex').toUpperCase()}`]),
    [],
  ],
  [
    'a key moved to another group and renamed',
    (c) => {
      c.keyGroups.ci.keys = [];
      c.keyGroups.dev.keys.push({ name: 'bob', key: BOB_KEY });
    },
    [
      {
        section: 'key',
        op: 'changed',
        name: 'dev:bob',
        fields: [
          { field: 'group', from: 'ci', to: 'dev' },
          { field: 'name', from: '(none)', to: 'bob' },
        ],
      },
    ],
  ],
  [
    'a group added with its key',
    (c) => (c.keyGroups.staging = { keys: [{ name: 'dana', key: 'dana-secret-key-0004' }], models: ['qwen-*', 'echo'] }),
    [
      { section: 'group', op: 'added', name: 'staging', detail: '1 key, models qwen-*, echo', fields: [] },
      { section: 'key', op: 'added', name: 'staging:dana', fields: [] },
    ],
  ],
  [
    'a group removed lists its keys as removed too',
    (c) => delete c.keyGroups.ci,
    [
      { section: 'group', op: 'removed', name: 'ci', detail: '1 key, models gpt-4.1', fields: [] },
      { section: 'key', op: 'removed', name: `ci:${idOf(BOB_KEY)}`, fields: [] },
    ],
  ],
  [
    'a group allowed more',
    (c) => {
      c.keyGroups.ci.models = ['gpt-4.1', 'qwen-*'];
      c.keyGroups.ci.protocols = ['chat', 'responses'];
      c.keyGroups.ci.features = ['streaming'];
    },
    [
      {
        section: 'group',
        op: 'changed',
        name: 'ci',
        fields: [
          { field: 'models', from: 'gpt-4.1', to: 'gpt-4.1, qwen-*' },
          { field: 'protocols', from: 'chat', to: 'responses, chat' },
          { field: 'features', from: 'tools, images, streaming, reasoning', to: 'streaming' },
        ],
      },
    ],
  ],
  [
    'a model re-mapped to another provider and upstream name',
    (c) => (c.models['gpt-4.1'] = { provider: 'ollama', upstreamModel: 'qwen2.5-coder:7b', features: ['tools', 'streaming'] }),
    [{ section: 'model', op: 'changed', name: 'gpt-4.1', fields: [{ field: 'route', from: 'openai', to: 'ollama/qwen2.5-coder:7b' }] }],
  ],
  [
    'a glob model added and one removed',
    (c) => {
      delete c.models['qwen-*'];
      c.models['claude-*'] = { provider: 'echo', upstreamModel: 'echo' };
    },
    [
      { section: 'model', op: 'removed', name: 'qwen-*', detail: '→ ollama', fields: [] },
      { section: 'model', op: 'added', name: 'claude-*', detail: '→ echo/echo', fields: [] },
    ],
  ],
  [
    'model features, description and output limit',
    (c) => (c.models['gpt-4.1'] = { provider: 'openai', features: ['tools'], description: 'Fast', maxOutputTokens: 4096 }),
    [
      {
        section: 'model',
        op: 'changed',
        name: 'gpt-4.1',
        fields: [
          { field: 'features', from: 'tools, streaming', to: 'tools' },
          { field: 'description', from: '(none)', to: 'Fast' },
          { field: 'maxOutputTokens', from: '(none)', to: '4096' },
        ],
      },
    ],
  ],
  [
    'a provider credential and header value change without their values',
    (c) => {
      c.providers.openai.apiKey = 'sk-openai-new-secret';
      c.providers.openai.headers = { 'OpenAI-Organization': 'org-new', 'X-Extra': 'v' };
    },
    [
      {
        section: 'provider',
        op: 'changed',
        name: 'openai',
        fields: [
          { field: 'credential', secret: true },
          { field: 'headers.OpenAI-Organization', secret: true },
          { field: 'headers.X-Extra', secret: true },
        ],
      },
    ],
  ],
  [
    'a provider moved, given protocols and timeouts',
    (c) => {
      c.providers.ollama = {
        type: 'openai-compatible',
        baseUrl: 'http://10.0.0.5:8000/v1/',
        protocols: ['chat', 'responses'],
        timeouts: { connectMs: 2000 },
      };
    },
    [
      {
        section: 'provider',
        op: 'changed',
        name: 'ollama',
        fields: [
          { field: 'baseUrl', from: 'http://127.0.0.1:11434/v1', to: 'http://10.0.0.5:8000/v1' },
          { field: 'protocols', from: 'chat', to: 'responses, chat' },
          { field: 'timeouts.connectMs', from: '10000', to: '2000' },
        ],
      },
    ],
  ],
  [
    'a provider added with its model, one removed with its model',
    (c) => {
      c.providers.anthropic = { type: 'anthropic', apiKey: 'sk-ant-secret' };
      c.models['claude-sonnet'] = { provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5' };
      delete c.providers.ollama;
      delete c.models['qwen-*'];
    },
    [
      { section: 'provider', op: 'removed', name: 'ollama', detail: 'openai-compatible, http://127.0.0.1:11434/v1', fields: [] },
      { section: 'provider', op: 'added', name: 'anthropic', detail: 'anthropic, https://api.anthropic.com', fields: [] },
      { section: 'model', op: 'removed', name: 'qwen-*', detail: '→ ollama', fields: [] },
      { section: 'model', op: 'added', name: 'claude-sonnet', detail: '→ anthropic/claude-sonnet-4-5', fields: [] },
    ],
  ],
  [
    'server fields',
    (c) => (c.server = { host: '0.0.0.0', port: 9000, maxBodyBytes: 1024 }),
    [
      {
        section: 'server',
        op: 'changed',
        name: 'server',
        fields: [
          { field: 'host', from: '127.0.0.1', to: '0.0.0.0' },
          { field: 'port', from: '8787', to: '9000' },
          { field: 'maxBodyBytes', from: '33554432', to: '1024' },
        ],
      },
    ],
  ],
  [
    'resilience settings: retries, total time, fallbacks, group limits',
    (c) => {
      c.providers.openai.retries = 0;
      c.providers.openai.timeouts = { totalMs: 60000 };
      c.models['gpt-4.1'].fallbacks = ['echo'];
      c.keyGroups.ci.limits = { requestsPerMinute: 30 };
      c.server.maxConcurrentRequests = 10;
    },
    [
      {
        section: 'provider',
        op: 'changed',
        name: 'openai',
        fields: [
          { field: 'timeouts.totalMs', from: '1800000', to: '60000' },
          { field: 'retries', from: '2', to: '0' },
        ],
      },
      { section: 'model', op: 'changed', name: 'gpt-4.1', fields: [{ field: 'fallbacks', from: '(none)', to: 'echo' }] },
      { section: 'group', op: 'changed', name: 'ci', fields: [{ field: 'limits.requestsPerMinute', from: '(none)', to: '30' }] },
      { section: 'server', op: 'changed', name: 'server', fields: [{ field: 'maxConcurrentRequests', from: '1024', to: '10' }] },
    ],
  ],
  [
    'the hostile-input limits and the group caps',
    (c) => {
      c.server.maxResponseBytes = 1024;
      c.server.maxConnections = 50;
      c.server.allowedHosts = ['gw.internal', 'gw.lan'];
      c.keyGroups.ci.maxOutputTokens = 4096;
      c.keyGroups.ci.maxChoices = 2;
    },
    [
      {
        section: 'group',
        op: 'changed',
        name: 'ci',
        fields: [
          { field: 'maxOutputTokens', from: '(none)', to: '4096' },
          { field: 'maxChoices', from: '(none)', to: '2' },
        ],
      },
      {
        section: 'server',
        op: 'changed',
        name: 'server',
        fields: [
          { field: 'maxConnections', from: '(default)', to: '50' },
          { field: 'maxResponseBytes', from: '67108864', to: '1024' },
          { field: 'allowedHosts', from: '(none)', to: 'gw.internal, gw.lan' },
        ],
      },
    ],
  ],
  [
    'the data folder',
    (c) => {
      c.server.dataDir = '/srv/model-gateway';
    },
    [{ section: 'server', op: 'changed', name: 'server', fields: [{ field: 'dataDir', from: '(default)', to: '/srv/model-gateway' }] }],
  ],
  [
    'state shared through Redis, its URL (which may hold a password) shown only as changed',
    (c) => {
      (c as { state?: unknown }).state = { redis: 'redis://:hunter2@redis.internal:6379', onRedisDown: { limits: 'closed' } };
    },
    [
      {
        section: 'server',
        op: 'changed',
        name: 'server',
        fields: [
          { field: 'state.redis', secret: true },
          { field: 'state.keyPrefix', from: '(none)', to: 'model-gateway:' },
          { field: 'state.onRedisDown.limits', from: '(none)', to: 'closed' },
          { field: 'state.onRedisDown.budgets', from: '(none)', to: 'closed' },
          { field: 'state.commandTimeoutMs', from: '(none)', to: '500' },
        ],
      },
    ],
  ],
];

describe('diffConfig', () => {
  it.each(cases)('%s', (_name, edit, expected) => {
    const after = base();
    edit(after);
    expect(diffConfig(parseConfig(base(), { env: {} }), parseConfig(after, { env: {} }))).toEqual(expected);
  });

  it('orders sections providers, models, groups, keys, server', () => {
    const after = base();
    after.server.port = 1;
    after.keyGroups.dev.keys.push('new-key-000000000');
    after.keyGroups.ci.models = ['*'];
    after.models.extra = { provider: 'echo' };
    after.providers.echo2 = { type: 'echo' };
    const sections = diffConfig(parseConfig(base(), { env: {} }), parseConfig(after, { env: {} })).map((c) => c.section);
    expect(sections).toEqual(['provider', 'model', 'group', 'key', 'server']);
  });

  it('never carries a secret: gateway keys, credentials and header values stay out of every change', () => {
    const after = base();
    after.providers.openai.apiKey = 'sk-openai-new-secret';
    after.providers.openai.headers = { 'OpenAI-Organization': 'org-new' };
    delete after.keyGroups.dev;
    after.keyGroups.ci.keys.push({ name: 'eve', key: 'eve-secret-key-0005' });
    const text = JSON.stringify(diffConfig(parseConfig(base(), { env: {} }), parseConfig(after, { env: {} })));
    for (const secret of [ALICE_KEY, BOB_KEY, 'eve-secret-key-0005', 'sk-openai-old-secret', 'sk-openai-new-secret', 'org-old', 'org-new']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('dev:alice');
    expect(text).toContain('ci:eve');
  });
});

/** Metrics and tracing are set up at start: a reload reports what changed in them, never a token, header value or URL password. */
describe('diffConfig of the metrics and tracing sections', () => {
  const metrics = { port: 9464, token: 'metrics-token-old-0001', labels: ['keyGroup'] };
  const tracing = { otlpEndpoint: 'http://user:pw-old@127.0.0.1:4318/?key=q-old', protocol: 'http/json', headers: { 'x-honeycomb-team': 'hc-old' }, sampleRatio: 0.5 };
  const server = (fields: { field: string; from?: string; to?: string; secret?: true }[]) => [{ section: 'server', op: 'changed', name: 'server', fields }];

  it.each<[string, Raw, Raw, unknown[]]>([
    ['metrics turned on', {}, { metrics }, server([{ field: 'metrics', from: 'off', to: 'on' }])],
    ['metrics turned off', { metrics }, { metrics: { ...metrics, enabled: false } }, server([{ field: 'metrics', from: 'on', to: 'off' }])],
    [
      'metrics moved to the gateway port, a new token, another label',
      { metrics },
      { metrics: { token: 'metrics-token-new-0002', labels: ['keyGroup', 'model'] } },
      server([
        { field: 'metrics.port', from: '9464', to: "(the gateway's)" },
        { field: 'metrics.token', secret: true },
        { field: 'metrics.labels', from: 'keyGroup', to: 'keyGroup, model' },
      ]),
    ],
    ['tracing turned on', {}, { tracing }, server([{ field: 'tracing', from: 'off', to: 'on' }])],
    [
      "tracing's endpoint moved, its header and ratio changed",
      { tracing },
      { tracing: { ...tracing, otlpEndpoint: 'http://collector.internal:4318', headers: { 'x-honeycomb-team': 'hc-new' }, sampleRatio: 1, captureContent: true } },
      server([
        { field: 'tracing.otlpEndpoint', from: 'http://127.0.0.1:4318/', to: 'http://collector.internal:4318/' },
        { field: 'tracing.headers.x-honeycomb-team', secret: true },
        { field: 'tracing.captureContent', from: 'false', to: 'true' },
        { field: 'tracing.sampleRatio', from: '0.5', to: '1' },
      ]),
    ],
    [
      "only the endpoint's password and query changed",
      { tracing },
      { tracing: { ...tracing, otlpEndpoint: 'http://user:pw-new@127.0.0.1:4318/?key=q-new' } },
      server([{ field: 'tracing.otlpEndpoint', secret: true }]),
    ],
  ])('%s', (_name, before, after, expected) => {
    const changes = diffConfig(parseConfig({ ...base(), ...before }, { env: {} }), parseConfig({ ...base(), ...after }, { env: {} }));
    expect(changes).toEqual(expected);
    for (const secret of ['metrics-token-old-0001', 'metrics-token-new-0002', 'hc-old', 'hc-new', 'pw-old', 'pw-new', 'q-old', 'q-new']) {
      expect(JSON.stringify(changes)).not.toContain(secret);
    }
  });
});
