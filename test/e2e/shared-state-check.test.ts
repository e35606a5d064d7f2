/**
 * `model-gateway check` about what gateways share: the "Shared state" section (the Redis URL never
 * with its password, the policy while Redis is down), and `check --probe` asking a real redis-server
 * (or a closed port) whether it answers and runs the gateway's scripts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '#src/cli/io.js';
import { run } from '#src/cli/main.js';
import { closedPort } from '../helpers/http.js';
import { HAS_REDIS, redisSuite, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { GATEWAY_KEY } from '../helpers/start-gateway.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `check` with an echo-only config plus `state`; its exit code and both outputs. */
async function check(state: unknown, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'mgw-state-check-'));
  dirs.push(cwd);
  const config = { providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, keyGroups: { dev: { keys: [GATEWAY_KEY] } }, ...(state ? { state } : {}) };
  writeFileSync(join(cwd, 'gateway.config.json'), JSON.stringify(config));
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { REDIS_URL: state && typeof state === 'object' && 'url' in state ? String(state.url) : '' },
    cwd,
    stopSignal: () => new Promise(() => {}),
  };
  const code = await run(['check', '--no-color', '--timeout', '2000', ...args], io);
  return { code, stdout, stderr };
}

describe('check: shared state', () => {
  it('says nothing is shared without state', async () => {
    const { code, stdout } = await check(undefined);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Shared state\n\s+nothing shared: limits and budgets are counted in this gateway's memory/);
  });

  it('shows the Redis URL with its password masked, the defaults marked, and the policy in words', async () => {
    const { code, stdout, stderr } = await check({ redis: 'rediss://gateway:hunter2@redis.internal:6380/3', onRedisDown: { limits: 'closed' } });
    expect(code).toBe(0);
    expect(stdout).toMatch(/state\.redis\s+rediss:\/\/gateway:\*\*\*@redis\.internal:6380\/3$/m);
    expect(stdout).toMatch(/state\.keyPrefix\s+model-gateway: \(default\)$/m);
    expect(stdout).toMatch(/state\.onRedisDown\.limits\s+closed: requests of groups with limits get 503 until Redis answers$/m);
    // Budgets are closed unless said otherwise.
    expect(stdout).toMatch(/state\.onRedisDown\.budgets\s+closed: requests with budgets get 503 until Redis answers \(default\)$/m);
    expect(stdout).toMatch(/state\.commandTimeoutMs\s+500 ms \(default\)$/m);
    expect(stdout + stderr).not.toContain('hunter2');
  });
});

describe.skipIf(!HAS_REDIS)(redisSuite('check --probe: Redis'), () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  it('a Redis that answers and runs scripts: ok, with its version', async () => {
    const { code, stdout, stderr } = await check({ redis: redis.url, keyPrefix: 'probe-test:' }, ['--probe']);
    expect(stderr).toMatch(/Redis: Redis 7?\d*\.\d+/);
    expect(stdout).toContain('Every provider and Redis answered; no problems found.');
    expect(code).toBe(0);
  });

  it('a Redis that does not answer: a problem naming state.redis, exit 1, the password never shown', async () => {
    const port = await closedPort();
    const { code, stdout, stderr } = await check({ redis: `redis://:hunter2@127.0.0.1:${port}` }, ['--probe']);
    expect(code).toBe(1);
    expect(stdout).toMatch(new RegExp(`✖ state\\.redis: .*ECONNREFUSED 127\\.0\\.0\\.1:${port}.*; while it is down, limits are open and budgets closed`));
    expect(stdout + stderr).not.toContain('hunter2');
  });

  // Last: the server keeps the password it is given here.
  it('a Redis refusing the password: a problem, the password never shown', async () => {
    expect(await redis.command('CONFIG', 'SET', 'requirepass', 'the-right-one')).toBe('OK');
    const { code, stdout, stderr } = await check({ redis: `redis://:hunter2@127.0.0.1:${redis.port}` }, ['--probe']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/✖ state\.redis: .*(AUTH|password)/i);
    expect(stdout + stderr).not.toContain('hunter2');
  });
});
