import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/parse.js';
import { formatBanner, keyNames } from './banner.js';
import { groupsTable } from './describe-config.js';

const plain = new Chalk({ level: 0 });
const named = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `member-${i}`, key: `team-key-${i}-xxxxxxxxxxxxxxxx` }));

function configWith(keys: unknown[]) {
  return parseConfig(
    { providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, keyGroups: { team: { keys } } },
    { env: {}, source: 'test.json' },
  );
}

describe('key names in the banner and in check', () => {
  it.each([
    [1, 5, 'member-0'],
    [5, 5, 'member-0, member-1, member-2, member-3, member-4'],
    [6, 5, 'member-0, member-1, member-2, member-3 and 2 more'],
    [200, 5, 'member-0, member-1, member-2, member-3 and 196 more'],
    [9, 8, 'member-0, member-1, member-2, member-3, member-4, member-5, member-6 and 2 more'],
  ])('%i keys, at most %i shown: %s', (n, max, expected) => {
    expect(keyNames(configWith(named(n)).keyGroups.get('team')!.keys, max)).toBe(expected);
  });

  it('shows an unnamed key by its id, never the key', () => {
    const config = configWith(['sk-unnamed-key-0123456789']);
    const text = keyNames(config.keyGroups.get('team')!.keys);
    expect(text).toMatch(/^[0-9a-f]{8}$/);
  });

  it('keeps a group of 200 keys to one short banner line and check cell', () => {
    const config = configWith(named(200));
    const banner = formatBanner({ url: 'http://127.0.0.1:4000', config, source: { filepath: '/tmp/test.json', description: 'test.json' }, chalk: plain, version: '0' });
    const line = banner.split('\n').find((l) => l.startsWith('groups'))!;
    expect(line).toBe('groups    team (200 keys: member-0, member-1, member-2, member-3 and 196 more; models *)');
    const table = groupsTable(config, plain);
    expect(table).toContain('member-0, member-1, member-2, member-3, member-4, member-5, member-6 and 193 more');
    expect(table).not.toContain('member-7,');
  });
});

describe('the banner at 80 columns', () => {
  const rows = (banner: string) => banner.trimEnd().split('\n').reduce((n, line) => n + Math.max(1, Math.ceil(line.length / 80)), 0);
  const url = 'http://127.0.0.1:43210';

  it('the built-in default, its key generated, the inspector on and the port picked at start: at most 15 rows', () => {
    const config = parseConfig({ server: { port: 0 }, providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, keyGroups: { local: { keys: ['mgw-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJK'] } } }, { env: {} });
    const banner = formatBanner({
      url,
      config,
      source: { filepath: undefined, description: 'built-in default (no config file found in /home/me/project)', generatedKey: 'mgw-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJK' },
      chalk: plain,
      version: '0.1.0',
      inspectorUrl: `${url}/_inspector/?token=0Vqkag2I1k_tR68qZN6PvYWVZOBAsa2QFAzExTJKwiE`,
    });
    expect(rows(banner)).toBeLessThanOrEqual(15);
    // The one command that starts a client names the key and the picked port.
    expect(banner).toContain(`clients   MODEL_GATEWAY_KEY=mgw-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJK npx model-gateway claude --url ${url} (or codex, gemini)`);
    expect(banner).toContain(`          npx model-gateway env <client> --url ${url}\n`);
  });

  it('a config file on its own port, its keys from the environment: at most 12 rows, no --url', () => {
    const config = configWith(named(3));
    const banner = formatBanner({ url: 'http://127.0.0.1:8787', config, source: { filepath: '/home/me/project/gateway.config.json', description: '/home/me/project/gateway.config.json' }, chalk: plain, version: '0.1.0', inspectorUrl: `${url}/_inspector/?token=0Vqkag2I1k_tR68qZN6PvYWVZOBAsa2QFAzExTJKwiE` });
    expect(rows(banner)).toBeLessThanOrEqual(12);
    expect(banner).toContain('clients   npx model-gateway claude (or codex, gemini)');
    expect(banner).toContain('npx model-gateway env <client> prints the settings to paste');
  });

  it('an address given on the command line (`serve --port`): the hints name it, as the config does not', () => {
    const config = configWith(named(3));
    const banner = formatBanner({ url, config, source: { filepath: '/p/gateway.config.json', description: '/p/gateway.config.json' }, chalk: plain, version: '0.1.0', addressFromFlags: true });
    expect(banner).toContain(`clients   npx model-gateway claude --url ${url} (or codex, gemini)`);
    expect(banner).toContain(`          npx model-gateway env <client> --url ${url}\n`);
  });
});

describe('the banner prints config text escaped', () => {
  it('names, URLs and descriptions with escape sequences, C1 and bidi controls', () => {
    const H = '\x1bc\x07\u009b2J\u202e';
    const config = parseConfig(
      {
        providers: { [`p${H}`]: { type: 'openai-compatible', baseUrl: `http://127.0.0.1:1/v1` } },
        models: { [`m${H}`]: { provider: `p${H}`, upstreamModel: `u${H}` } },
        keyGroups: { [`g${H}`]: { keys: [{ name: `k${H}`, key: 'team-key-0-xxxxxxxxxxxxxxxx' }], models: [`m${H}`] } },
      },
      { env: {}, source: 'test.json' },
    );
    const banner = formatBanner({ url: 'http://127.0.0.1:4000', config, source: { filepath: '/tmp/x.json', description: `x${H}.json` }, chalk: plain, version: '0' });
    expect(banner).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
    for (const name of ['p', 'm', 'u', 'g', 'k', 'x']) expect(banner).toContain(`${name}\\x1bc\\x07\\x9b2J\\u202e`);
  });
});

describe('the banner and what gateways share', () => {
  const banner = (state?: unknown) =>
    formatBanner({
      url: 'http://127.0.0.1:4000',
      config: parseConfig({ providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, ...(state ? { state } : {}) }, { env: {} }),
      source: { filepath: '/tmp/x.json', description: 'x.json' },
      chalk: plain,
      version: '0',
    });

  it('names the Redis, its password masked, and what limits and budgets do while it is down', () => {
    expect(banner({ redis: 'redis://:hunter2@redis.internal:6379/0' })).toContain(
      "shared    limits, budgets, wrong keys and cool-downs in Redis at redis://:***@redis.internal:6379/0 (limits this gateway's own while it is down; budgets refused while it is down)",
    );
    expect(banner({ redis: 'redis://r:6379', onRedisDown: { limits: 'closed', budgets: 'open' } })).toContain(
      "(limits refused while it is down; budgets this gateway's own while it is down)",
    );
    expect(banner({ redis: 'redis://:hunter2@r:6379' })).not.toContain('hunter2');
  });

  it('says nothing of it without state', () => {
    expect(banner()).not.toMatch(/^shared/m);
  });
});
