/**
 * Adds one number field to a passthrough body (a key group's output cap) without re-serialising
 * it, as rename-model.ts does for `model`: the member is spliced in after the root object's `{`.
 */
import { isSpace } from '../protocols/json.js';

/**
 * `raw` with `"key":value` added at the root. `json` is the body as parsed: a key it holds already
 * (as null) would be left twice in the bytes, which servers read differently, so then the body is
 * re-serialised, with `model` set to `model`.
 */
export function addNumberField(raw: Buffer, json: Record<string, unknown>, key: string, value: number, model: string): Buffer {
  let i = 0;
  while (isSpace(raw[i])) i++;
  if (Object.hasOwn(json, key) || raw[i] !== 0x7b /* { */) return Buffer.from(JSON.stringify({ ...json, model, [key]: value }));
  let next = i + 1;
  while (isSpace(raw[next])) next++;
  const member = Buffer.from(`${JSON.stringify(key)}:${value}${raw[next] === 0x7d /* } */ ? '' : ','}`);
  return Buffer.concat([raw.subarray(0, i + 1), member, raw.subarray(i + 1)], raw.length + member.length);
}
