/**
 * Credential cool-downs told to the other gateways of one Redis: a gateway whose upstream answered a
 * credential 429/529 publishes how long it cools down, and every gateway subscribed applies it to its
 * own rotation (providers/credentials/rotation.ts), so no gateway spends a call on a credential the
 * upstream just refused. Nothing is sent or read per request: only when an upstream throttles. A
 * gateway started later, or one that missed a message while Redis was down, learns of a cool-down
 * from its own first 429, as it would alone.
 *
 * Messages come from whoever can publish on that Redis, so they are read as hostile: bounded in size,
 * their fields checked, a cool-down at most a day.
 */
import { randomBytes } from 'node:crypto';
import type { RedisConnection } from './redis-connection.js';

const MAX_MESSAGE_CHARS = 4096;
const MAX_COOL_DOWN_MS = 24 * 60 * 60 * 1000;

export interface SharedCooldowns {
  report(provider: string, credential: string, ms: number): void;
  listen(provider: string, cool: (credential: string, ms: number) => void): () => void;
  close(): void;
}

export function shareCooldowns(connection: Pick<RedisConnection, 'client' | 'up' | 'failed'>, keyPrefix: string): SharedCooldowns {
  const channel = `${keyPrefix}credential-cooldowns`;
  // This gateway's own messages come back to it too; it has applied them already.
  const self = randomBytes(8).toString('hex');
  const listeners = new Map<string, Set<(credential: string, ms: number) => void>>();
  // A connection in subscriber mode takes no other command: a second one, reconnecting and resubscribing on its own.
  const subscriber = connection.client.duplicate();
  // The main connection reports outages; this one's errors would only repeat them.
  subscriber.on('error', () => {});
  subscriber.subscribe(channel).catch(() => {});
  subscriber.on('message', (from: string, text: string) => {
    if (from !== channel) return;
    const message = readCooldown(text);
    if (!message || message.from === self) return;
    for (const cool of listeners.get(message.provider) ?? []) cool(message.credential, message.ms);
  });

  return {
    report(provider, credential, ms) {
      if (!connection.up) return;
      const text = JSON.stringify({ from: self, provider, credential, ms: Math.min(ms, MAX_COOL_DOWN_MS) });
      connection.client.publish(channel, text).catch(connection.failed);
    },
    listen(provider, cool) {
      let set = listeners.get(provider);
      if (!set) {
        set = new Set();
        listeners.set(provider, set);
      }
      set.add(cool);
      return () => {
        set.delete(cool);
        if (set.size === 0) listeners.delete(provider);
      };
    },
    close() {
      listeners.clear();
      // Nothing is waiting for an answer here: dropped at once, whatever state it is in.
      subscriber.disconnect();
    },
  };
}

export interface Message {
  readonly from: string;
  readonly provider: string;
  readonly credential: string;
  readonly ms: number;
}

/** A message as another gateway publishes it, or undefined for anything else. */
export function readCooldown(text: string): Message | undefined {
  if (text.length > MAX_MESSAGE_CHARS) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { from, provider, credential, ms } = value as Record<string, unknown>;
  if (typeof from !== 'string' || typeof provider !== 'string' || typeof credential !== 'string') return undefined;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) return undefined;
  return { from, provider, credential, ms: Math.min(ms, MAX_COOL_DOWN_MS) };
}
