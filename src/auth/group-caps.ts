/**
 * A key group's caps on what one request may ask for: output tokens (`maxOutputTokens`) and Chat
 * Completions choices (`maxChoices`). Asking for more is the group's "no", so 403 as in
 * authorize.ts; a request that names no output limit is sent with the group's cap instead, so that
 * leaving the field out is not a way round it. Counting tokens is not capped: it generates nothing.
 */
import type { KeyGroupConfig } from '../config/types.js';
import type { Dialect } from '../providers/kind.js';
import { invalidRequest, permissionDenied } from '../errors.js';
import { isObject, type Json } from '../protocols/json.js';
import { protocols } from '../protocols/registry.js';
import type { Protocol } from '../protocols/types.js';

/** The value at a field of `asks`: a key of the body, or a dotted path (`generationConfig.maxOutputTokens`). */
function askAt(body: Json, field: string): unknown {
  if (!field.includes('.')) return body[field];
  let v: unknown = body;
  for (const key of field.split('.')) v = isObject(v) ? v[key] : undefined;
  return v;
}

/** `body` with `value` at `field` (dotted: the objects on the way copied, or made where absent). */
export function withAsk(body: Json, field: string, value: number): Json {
  const [head, ...rest] = field.split('.') as [string, ...string[]];
  if (rest.length === 0) return { ...body, [head]: value };
  const inner = isObject(body[head]) ? body[head] : {};
  return { ...body, [head]: withAsk(inner, rest.join('.'), value) };
}

/** The output tokens a request asks for at most (the first of its protocol's fields it sets), if it says. */
export function askedOutputTokens(protocol: Protocol, body: Json): number | undefined {
  for (const field of protocols[protocol].asks.outputTokens) {
    const v = askAt(body, field);
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  }
  return undefined;
}

/** Throws when a create request asks for more than its group's caps allow (the fields each protocol reads: its `asks`). */
export function checkGroupCaps(group: KeyGroupConfig, protocol: Protocol, body: Json): void {
  const { asks } = protocols[protocol];
  const tokens = group.maxOutputTokens;
  if (tokens !== undefined) {
    for (const field of asks.outputTokens) checkAsk(group, askAt(body, field), field, tokens, 'output tokens', 'maxOutputTokens');
  }
  const choices = group.maxChoices;
  if (choices !== undefined) {
    for (const field of asks.choices ?? []) checkAsk(group, askAt(body, field), field, choices, 'choices', 'maxChoices');
  }
}

function checkAsk(group: KeyGroupConfig, value: unknown, field: string, cap: number, what: string, setting: string): void {
  if (value === undefined || value === null) return;
  // A string a lax server would read as a number cannot be held to the cap: refused, as OpenAI and Anthropic refuse it.
  if (typeof value !== 'number') throw invalidRequest(`\`${field}\` must be a number.`, field);
  if (value > cap) {
    throw permissionDenied(
      `Key group '${group.name}' may ask for at most ${cap} ${what} per request (keyGroups.${group.name}.${setting}); \`${field}\` is ${value}.`,
      field,
    );
  }
}

/**
 * The group's output cap when a create request names no output limit (null counts as none), to be
 * sent with it; undefined when there is nothing to add (no cap, or a protocol that requires the
 * field). Reads the body only for a group with a cap.
 */
export function outputCapToAdd(group: KeyGroupConfig, protocol: Protocol, operation: string, body: () => Json): number | undefined {
  const cap = group.maxOutputTokens;
  const module = protocols[protocol];
  if (cap === undefined || operation !== 'create' || module.outputCapField === undefined) return undefined;
  const json = body();
  for (const field of module.asks.outputTokens) {
    const asked = askAt(json, field);
    if (asked !== undefined && asked !== null) return undefined;
  }
  return cap;
}

/**
 * The field the cap is added as. To a translated request, the caller's own (the translator carries it
 * to the upstream's); passed through, the one the upstream reads.
 */
export function outputCapField(protocol: Protocol, upstream: Dialect | 'translated'): string {
  const field = protocols[protocol].outputCapField?.(upstream);
  // outputCapToAdd adds nothing for a protocol without the field.
  if (field === undefined) throw new RangeError(`the ${protocol} protocol takes no added output cap`);
  return field;
}
