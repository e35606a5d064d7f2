/**
 * The gateway's one connection to the Redis of `state.redis`, and whether Redis is answering.
 *
 * A request must never wait on a Redis that is gone: every command has `commandTimeoutMs`, a
 * command sent while the connection is down fails at once (the client flushes its queue on
 * every lost connection rather than holding commands for a reconnect), and once anything failed
 * the connection is marked down, so that the stores stop asking Redis and apply their policy
 * without waiting. While down, a PING each second finds out when Redis answers again (a stalled
 * Redis keeps its TCP connection, so a reconnect alone would not say). The client reconnects on
 * its own. The outage and its end are logged once each; the URL is shown without its password.
 *
 * A command Redis answers with an error of that command's own (a key of the wrong type, a script
 * stopped on a value it cannot read) or with a reply the gateway cannot read is not an outage: the
 * request it was for is decided by the policy, and Redis stays in use for the others. Marking it
 * down would only have it found up again by the next PING, and down again by the next such command.
 */
import type { Redis } from 'ioredis';
import type { StateConfig } from '../config/types.js';
import type { Logger } from '../log/logger.js';
import { printable } from '../log/terminal-text.js';
import { redisClientClass } from './redis-client.js';
import { commandAlone } from './redis-errors.js';
import { normalRedisUrl, shownRedisUrl } from './redis-url.js';

/** How often a down Redis is asked whether it answers again. */
const PROBE_EVERY_MS = 1000;
/** How often one error of a command's own is logged again while it keeps happening. */
const SAY_AGAIN_MS = 60_000;
/** Errors of commands' own remembered for that; past it, all are forgotten. */
const MAX_REMEMBERED = 32;
/** The longest pause between reconnection attempts. */
const MAX_RECONNECT_DELAY_MS = 2000;

export interface RedisConnection {
  readonly client: Redis;
  /** False from a failure until Redis answers again; while false the stores do not ask it. */
  readonly up: boolean;
  /** A command failed (or timed out): Redis is down until it answers a PING, unless the error was that command's alone. */
  failed(err: unknown): void;
  close(): Promise<void>;
}

export interface RedisConnectionOptions {
  readonly state: StateConfig;
  readonly logger: Logger;
  /** What the gateway does while Redis is down, for the outage's log line (on-redis-down.ts `whileRedisDown`). */
  readonly whileDown: string;
  /** Told whether Redis answers, at start and at each change (the metrics' store health). */
  readonly health?: (up: boolean) => void;
}

export function connectRedis(options: RedisConnectionOptions): RedisConnection {
  const { state, logger } = options;
  const where = printable(shownRedisUrl(state.redis));
  // The config accepts no query in the URL (state/redis-url.ts): nothing there can override these.
  const RedisClient = redisClientClass();
  const client: Redis = new RedisClient(normalRedisUrl(state.redis), {
    commandTimeout: state.commandTimeoutMs,
    connectTimeout: Math.max(state.commandTimeoutMs, 2000),
    maxRetriesPerRequest: 0,
    retryStrategy: (times: number) => Math.min(times * 100, MAX_RECONNECT_DELAY_MS),
    connectionName: 'model-gateway',
    // How long a closing socket may take to close; it also holds the process that long when the socket was already gone.
    disconnectTimeout: state.commandTimeoutMs,
  });

  let up = true;
  let probe: NodeJS.Timeout | undefined;
  let closed = false;

  const markUp = () => {
    clearInterval(probe);
    probe = undefined;
    if (up) return;
    up = true;
    options.health?.(true);
    logger.info(`Redis at ${where} answers again: limits and budgets are shared again`);
  };
  const markDown = (err: unknown) => {
    if (closed) return;
    if (up) {
      up = false;
      options.health?.(false);
      logger.info(`Redis at ${where} cannot be reached (${messageOf(err)}); ${options.whileDown}`);
    }
    probe ??= setInterval(() => {
      if (client.status !== 'ready') return;
      client.ping().then(markUp, () => {});
    }, PROBE_EVERY_MS).unref();
  };

  /** When each error of a command's own was last logged. */
  const said = new Map<string, number>();
  const refused = (err: unknown) => {
    const message = messageOf(err);
    const now = performance.now();
    if (now - (said.get(message) ?? Number.NEGATIVE_INFINITY) < SAY_AGAIN_MS) return;
    if (said.size >= MAX_REMEMBERED) said.clear();
    said.set(message, now);
    logger.info(`Redis at ${where} answered a command with an error (${message}); the request it was for is decided as while Redis is down, and Redis stays in use for the others`);
  };

  options.health?.(true);
  client.on('ready', markUp);
  // The client reports each failed attempt to reconnect; one line per outage is enough.
  client.on('error', markDown);
  client.on('close', () => markDown(new Error('connection closed')));

  return {
    client,
    get up() {
      return up;
    },
    failed: (err) => (commandAlone(err) ? refused(err) : markDown(err)),
    async close() {
      closed = true;
      clearInterval(probe);
      // QUIT lets the commands already sent (the last admissions' ends) finish; a dead connection is just dropped.
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    },
  };
}

const messageOf = (err: unknown): string => printable(err instanceof Error ? err.message : String(err));
