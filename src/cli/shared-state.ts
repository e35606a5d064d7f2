/**
 * `check`'s "Shared state" section: whether limits are this gateway's own or kept in Redis (the
 * URL with its password masked, the key prefix, what happens while Redis is down), and with
 * `--probe`, whether that Redis answers and runs the gateway's scripts.
 */
import type { ChalkInstance } from 'chalk';
import { assertNever } from '../assert-never.js';
import { DEFAULT_STATE } from '../config/defaults.js';
import type { OnRedisDown, StateConfig } from '../config/types.js';
import { printable } from '../log/terminal-text.js';
import { loadRedisClient } from '../state/redis-client.js';
import { normalRedisUrl, shownRedisUrl } from '../state/redis-url.js';
import type { Check } from './probe.js';
import { formatTable, type Column } from './table.js';

interface Row {
  readonly setting: string;
  readonly value: string;
}

function whileDown(policy: OnRedisDown, refused: string): string {
  switch (policy) {
    case 'open':
      return "open: each gateway counts in its own memory until Redis answers";
    case 'closed':
      return `closed: ${refused} get 503 until Redis answers`;
    default:
      return assertNever(policy);
  }
}

export function sharedStateTable(state: StateConfig | undefined, c: ChalkInstance): string {
  if (!state) return `  ${c.gray('nothing shared: limits and budgets are counted in this gateway\'s memory (set state.redis to share them between gateways)')}\n`;
  const marked = (value: string, isDefault: boolean) => (isDefault ? c.gray(`${value} (default)`) : value);
  const rows: Row[] = [
    { setting: 'state.redis', value: printable(shownRedisUrl(state.redis)) },
    { setting: 'state.keyPrefix', value: marked(printable(state.keyPrefix), state.keyPrefix === DEFAULT_STATE.keyPrefix) },
    { setting: 'state.onRedisDown.limits', value: marked(whileDown(state.onRedisDown.limits, 'requests of groups with limits'), state.onRedisDown.limits === DEFAULT_STATE.onRedisDown.limits) },
    {
      setting: 'state.onRedisDown.budgets',
      value: marked(whileDown(state.onRedisDown.budgets, 'requests with budgets'), state.onRedisDown.budgets === DEFAULT_STATE.onRedisDown.budgets),
    },
    { setting: 'state.commandTimeoutMs', value: marked(`${state.commandTimeoutMs} ms`, state.commandTimeoutMs === DEFAULT_STATE.commandTimeoutMs) },
  ];
  const columns: Column<Row>[] = [
    { header: 'setting', cell: (r) => r.setting },
    { header: 'value', cell: (r) => r.value },
  ];
  return formatTable(columns, rows, c);
}

/**
 * Connects once (no reconnecting), and asks what the limit store needs: a script that reads Redis's
 * clock and writes under the key prefix (a key that expires at once). Ok with the server's version.
 */
export async function probeRedis(state: StateConfig, timeoutMs: number): Promise<Check> {
  const Redis = await loadRedisClient();
  const client = new Redis(normalRedisUrl(state.redis), {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    connectionName: 'model-gateway-check',
    disconnectTimeout: timeoutMs,
  });
  // A failed connection rejects with only "Connection is closed."; the error event before it says why.
  let why: Error | undefined;
  client.on('error', (err: Error) => {
    why ??= err;
  });
  try {
    await client.connect();
    const info = await client.info('server');
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown version';
    const script = "redis.call('TIME'); redis.call('SET', KEYS[1], '1', 'PX', 1); return 1";
    await client.eval(script, 1, `${state.keyPrefix}check`);
    return { verdict: 'ok', detail: `Redis ${printable(version)}` };
  } catch (err) {
    const cause = why ?? err;
    return { verdict: 'failed', detail: printable(cause instanceof Error ? cause.message : String(cause)) };
  } finally {
    client.disconnect();
  }
}
