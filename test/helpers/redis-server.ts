/**
 * A real `redis-server` (Debian's package) for the tests of what gateways share: started on a free
 * loopback port in a temporary folder, persisting nothing, and killed at the end. Without the
 * binary the suites using it skip and say why (`.ci/run` installs it when missing).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Chalk } from 'chalk';
import { Redis } from 'ioredis';
import type { StateConfig } from '#src/config/types.js';
import { createLogger } from '#src/log/logger.js';
import { loadRedisClient } from '#src/state/redis-client.js';
import { connectRedis, type RedisConnection } from '#src/state/redis-connection.js';

// The gateway's connections (connectRedis) need the client loaded, as loadConfig does for `serve`.
await loadRedisClient();

export const REDIS_SERVER = process.env.MODEL_GATEWAY_REDIS_SERVER ?? 'redis-server';
export const HAS_REDIS = spawnSync(REDIS_SERVER, ['--version'], { stdio: 'ignore' }).status === 0;
/** The describe name of a Redis suite: says why it skipped when it does. */
export const redisSuite = (name: string) =>
  HAS_REDIS ? name : `${name} (skipped: no ${REDIS_SERVER} on PATH; install it with apt-get install redis-server, or set MODEL_GATEWAY_REDIS_SERVER)`;

export interface TestRedis {
  readonly port: number;
  readonly url: string;
  /** Kills the server at once (SIGKILL), as a crash or a lost host would. */
  kill(): Promise<void>;
  /** A fresh, empty server on the same port (after `kill`). */
  restart(): Promise<void>;
  /** Stops it (SIGSTOP): connections stay open and nothing answers. `resume` undoes it. */
  pause(): void;
  resume(): void;
  /** One command over a connection of its own, for checks from the outside: an integer or status reply as text (a bulk string would give its length). */
  command(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(path.join(tmpdir(), 'model-gateway-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async () => {
    const proc = spawn(
      REDIS_SERVER,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', '', '--loglevel', 'warning'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    proc.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
    child = proc;
    const until = Date.now() + 10_000;
    while ((await send(port, ['PING']).catch(() => '')) !== 'PONG') {
      if (proc.exitCode !== null || Date.now() > until) throw new Error(`redis-server did not start on port ${port}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const kill = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    proc.kill('SIGCONT');
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: launch,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    command: (...args) => send(port, args),
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A port free on loopback now (the server binds it right after). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** One command in RESP, its first reply line without the type byte: whole for integer and status replies (PING, ZCARD, INCRBY, PTTL). */
function send(port: number, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(2000, () => socket.destroy(new Error('redis did not answer')));
    socket.on('error', reject);
    socket.on('data', (b) => {
      reply += b.toString();
      const end = reply.indexOf('\r\n');
      if (end === -1) return;
      socket.end();
      const line = reply.slice(0, end);
      if (line.startsWith('-')) reject(new Error(line.slice(1)));
      else resolve(line.slice(1));
    });
    socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
  });
}

/**
 * Connections of the gateway's own to a test Redis, as the store contract suites open them: each store
 * under a key prefix of its own (`freshPrefix`), so no test sees another's keys; `closeAll` at the end.
 */
export function testRedisConnections(redis: () => TestRedis) {
  const open: RedisConnection[] = [];
  let prefixes = 0;
  const quiet = createLogger({ out: { write: () => true }, chalk: new Chalk({ level: 0 }), verbose: false });
  const state = (): StateConfig => ({ redis: redis().url, keyPrefix: 'unused:', onRedisDown: { limits: 'closed', budgets: 'closed' }, commandTimeoutMs: 2000 });
  return {
    freshPrefix: () => `test-${process.pid}-${prefixes++}:`,
    /** A gateway's own connection to the test Redis. */
    connection(): RedisConnection {
      const c = connectRedis({ state: state(), logger: quiet, whileDown: '' });
      open.push(c);
      return c;
    },
    closeAll: () => Promise.all(open.map((c) => c.close())),
  };
}

/**
 * How many scripts the server has run (EVAL and EVALSHA calls, from every client) since it started or since
 * `CONFIG RESETSTAT`, from its own statistics: a count of round trips that needs no MONITOR connection.
 */
export async function scriptsRun(url: string): Promise<number> {
  const client = new Redis(url);
  try {
    const stats = await client.info('commandstats');
    let calls = 0;
    for (const m of stats.matchAll(/^cmdstat_(?:eval|evalsha):calls=(\d+)/gm)) calls += Number(m[1]);
    return calls;
  } finally {
    client.disconnect();
  }
}

/** Zeroes the server's statistics (`scriptsRun` counts from here). */
export async function resetStats(url: string): Promise<void> {
  const client = new Redis(url);
  try {
    await client.config('RESETSTAT');
  } finally {
    client.disconnect();
  }
}
