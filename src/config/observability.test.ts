/** The `metrics` and `tracing` sections: what is refused, and what the gateway runs on. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { parseConfig } from './parse.js';

const base = (extra: Record<string, unknown>) => ({
  providers: { openai: { type: 'openai', apiKey: 'sk-test' } },
  models: { 'gpt-4.1': { provider: 'openai' } },
  keyGroups: { dev: { keys: ['dev-key'] } },
  ...extra,
});

const issues = (raw: unknown, env: Record<string, string> = {}) => {
  try {
    parseConfig(raw, { env });
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.path}: ${i.message}`);
    throw err;
  }
};

describe('metrics config', () => {
  it.each([
    ['on the gateway port without a token', { enabled: true }, /^metrics\.token: metrics served on the gateway's port \(no "port"\) need a "token"/],
    ['a short token', { token: 'short' }, /^metrics\.token: a metrics token must be at least 16 characters/],
    ['an unknown label', { port: 9464, labels: ['session'] }, /^metrics\.labels\[0\]/],
    ['a label twice', { port: 9464, labels: ['key', 'key'] }, /^metrics\.labels: a label is listed twice/],
    ['a port out of range', { port: 70000 }, /^metrics\.port/],
  ])('refuses %s', (_what, metrics, message) => {
    const found = issues(base({ metrics }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
  });

  it.each([
    ['no section: off', {}, undefined],
    ['enabled: false, even without a token', { metrics: { enabled: false } }, undefined],
    ['a port: its own listener on loopback', { metrics: { port: 9464 } }, { port: 9464, host: '127.0.0.1', token: undefined, labels: [] }],
    [
      'a token from the environment: on the gateway port',
      { metrics: { token: '${METRICS_TOKEN}', labels: ['keyGroup', 'model'] } },
      { port: undefined, host: '127.0.0.1', token: 'a-token-of-twenty-chars', labels: ['keyGroup', 'model'] },
    ],
  ])('%s', (_what, extra, expected) => {
    expect(parseConfig(base(extra), { env: { METRICS_TOKEN: 'a-token-of-twenty-chars' } }).metrics).toEqual(expected);
  });
});

describe('tracing config', () => {
  it.each([
    ['a ratio above 1', { sampleRatio: 2 }, /^tracing\.sampleRatio/],
    ['an unknown protocol', { protocol: 'grpc' }, /^tracing\.protocol/],
  ])('refuses %s', (_what, tracing, message) => {
    const found = issues(base({ tracing }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
  });

  it('keeps what is written and leaves the rest to the OTEL_* variables', () => {
    expect(parseConfig(base({ tracing: { otlpEndpoint: 'http://127.0.0.1:4318' } }), { env: {} }).tracing).toEqual({
      otlpEndpoint: 'http://127.0.0.1:4318',
      protocol: undefined,
      headers: {},
      captureContent: false,
      sampleRatio: undefined,
    });
  });
});
