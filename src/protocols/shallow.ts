/**
 * Shallow request checks shared by the three protocols: only what the gateway
 * itself depends on. Everything else passes through untouched, because clients
 * add fields every release and a strict schema would turn each one into a 400.
 */
import { invalidRequest } from '../errors.js';
import { isObject, type Json } from './json.js';
import type { RequestLimits } from './types.js';

export { isObject, type Json };

export function requireObjectBody(body: unknown): Json {
  if (!isObject(body)) throw invalidRequest('The request body must be a JSON object.');
  return body;
}

export function requireModel(body: Json): string {
  const model = body.model;
  if (typeof model !== 'string' || model.trim() === '') {
    throw invalidRequest(
      model === undefined ? 'Missing required parameter: `model`.' : '`model` must be a non-empty string.',
      'model',
    );
  }
  return model;
}

/** `stream` must be a boolean when present (null is accepted as "not set", as the SDK types allow). */
export function readStream(body: Json): boolean {
  const stream = body.stream;
  if (stream === undefined || stream === null) return false;
  if (typeof stream !== 'boolean') throw invalidRequest('`stream` must be a boolean.', 'stream');
  return stream;
}

/**
 * A non-empty array of objects, each with a string `role`, and no more of them than `limits` allow
 * (translators read bodies validated already, and pass none).
 */
export function requireMessages(body: Json, limits?: RequestLimits): Json[] {
  const messages = body.messages;
  if (messages === undefined) throw invalidRequest('Missing required parameter: `messages`.', 'messages');
  if (!Array.isArray(messages)) throw invalidRequest('`messages` must be an array.', 'messages');
  if (messages.length === 0) throw invalidRequest('`messages` must contain at least one message.', 'messages');
  if (limits) checkCap(messages.length, limits, 'maxMessages', 'messages', (n) => `\`messages\` has ${n} entries`);
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i];
    if (!isObject(m)) throw invalidRequest(`\`messages[${i}]\` must be an object.`, `messages[${i}]`);
    if (typeof m.role !== 'string' || m.role === '') {
      throw invalidRequest(`\`messages[${i}].role\` must be a non-empty string.`, `messages[${i}].role`);
    }
  }
  return messages as Json[];
}

/** An array's length, 0 for anything else. */
export const lengthOf = (v: unknown): number => (Array.isArray(v) ? v.length : 0);

/**
 * Throws a 400 naming the field and the setting when `count` is over the cap. The caps keep every
 * later step (translation, token estimates, the log) within what one request may fairly cost.
 */
export function checkCap(count: number, limits: RequestLimits, setting: keyof RequestLimits, param: string, subject: (n: number) => string): void {
  const cap = limits[setting];
  if (count > cap) throw invalidRequest(`${subject(count)}; this gateway accepts at most ${cap} (server.${setting}).`, param);
}

/**
 * Counts the content parts under `items`: the arrays at `nestedKeys`, and inside their parts, the
 * arrays at the same keys (tool results hold content of their own). Each part is visited once; the
 * depth is bounded by the body's (MAX_JSON_DEPTH).
 */
export function countParts(items: readonly unknown[], nestedKeys: readonly string[]): number {
  let count = 0;
  for (const item of items) {
    if (!isObject(item)) continue;
    for (const key of nestedKeys) {
      const nested = item[key];
      if (Array.isArray(nested)) count += nested.length + countParts(nested, nestedKeys);
    }
  }
  return count;
}

/** Removes keys whose value is undefined (for `exactOptionalPropertyTypes` objects built from optional reads). */
export function dropUndefined<T extends object>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  // A copy, not `delete`: an object that loses a property turns into a slow dictionary (these are per request).
  const out: Partial<T> = {};
  for (const k in o) if (o[k] !== undefined) out[k] = o[k];
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
