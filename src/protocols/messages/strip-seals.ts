/**
 * A Messages request going to a Messages provider as it is (passthrough) may hold thinking
 * blocks the gateway sealed for another provider's reasoning (Claude Code keeps them when the
 * user switches model, or a fallback moves the conversation). Anthropic would refuse their
 * signatures, so they are taken out first.
 */
import { isSeal } from '../../translate/common/reasoning-seal.js';
import { isObject, type Json } from '../shallow.js';

/** Every seal starts its signature string so; absent from the bytes, there is nothing to look for. */
const MARK = Buffer.from('"mgw1.');

export interface Stripped {
  readonly body: Json;
  readonly dropped: number;
}

export function stripSeals(raw: Buffer, body: () => Json): Stripped | undefined {
  if (raw.indexOf(MARK) === -1) return undefined;
  const json = body();
  if (!Array.isArray(json.messages)) return undefined;
  let dropped = 0;
  const messages = json.messages.map((m: unknown) => {
    if (!isObject(m) || !Array.isArray(m.content)) return m;
    const content = m.content.filter((b: unknown) => {
      const sealed = isObject(b) && b.type === 'thinking' && typeof b.signature === 'string' && isSeal(b.signature);
      if (sealed) dropped++;
      return !sealed;
    });
    return content.length === m.content.length ? m : { ...m, content };
  });
  return dropped === 0 ? undefined : { body: { ...json, messages }, dropped };
}
