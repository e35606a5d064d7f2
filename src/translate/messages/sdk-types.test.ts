/**
 * Type-level drift check: the shapes this codec emits must be assignable to the official SDK
 * types (checked by `tsc`; the runtime assertion only keeps vitest from reporting an empty file).
 */
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type * as Ir from '#src/translate/ir.js';
import { buildMessage } from './encode-response.js';
import type { StreamEvent } from './wire.js';

/** Our wire types are readonly; the SDK's are mutable. The shapes are what is compared. */
type Writable<T> = T extends readonly (infer U)[] ? Writable<U>[] : T extends object ? { -readonly [K in keyof T]: Writable<T[K]> } : T;
const writable = <T>(value: T): Writable<T> => value as Writable<T>;

const ctx: Ir.TranslateContext = {
  caller: 'messages',
  upstream: 'chat',
  requestedModel: 'm',
  upstreamModel: 'u',
  upstreamDialect: 'openai',
  now: () => 0,
  newId: (p) => p,
  warnings: [],
  toolNames: new Map(),
};

type SdkEvent = Anthropic.RawMessageStreamEvent;
/** Every event but our `ping` and `error`, which the SDK handles outside its event union. */
type Typed = Exclude<StreamEvent, { type: 'ping' } | { type: 'error' }>;

describe('emitted shapes fit the SDK types', () => {
  it('Message and stream events', () => {
    const message: Anthropic.Message = writable(
      buildMessage({ id: 'i', model: 'm', created: 0, content: [{ type: 'text', text: 't' }], stopReason: 'end', usage: { inputTokens: 1, outputTokens: 1 } }, ctx),
    );
    const check = (e: Typed): SdkEvent => writable(e);
    const events = [check({ type: 'message_stop' })];
    expect([message, events].every((v) => v !== undefined)).toBe(true);
  });
});
