/**
 * A Gemini request going to a Gemini provider as it is (passthrough) may hold the gateway's seals
 * in `thoughtSignature`s: reasoning of another upstream that the gateway handed a Gemini caller
 * (codec/signatures.ts), kept when the user switches model or a fallback moves the conversation.
 * Google refuses a signature it did not make, so they are taken out first. On the first function
 * call of a model turn, where Gemini 3 requires a signature, Google's documented value for history
 * it did not produce takes the seal's place (or is added, when the turn's seals were elsewhere and
 * that call has none); anywhere else the signature goes, with the part when nothing else is left of
 * it (Google refuses an empty text part). `dropped` counts the seals: one per reasoning part.
 */
import { isObject, type Json } from '../json.js';
import { SEALS_BASE64, SKIP_SIGNATURE, unpackSeals } from './codec/signatures.js';
import { field } from './fields.js';

/** Every seal's signature starts so; absent from the bytes, there is nothing to look for. */
const MARK = Buffer.from(`"${SEALS_BASE64}`);

export interface Stripped {
  readonly body: Json;
  readonly dropped: number;
}

/** The key `name` (lowerCamel) is written under in `o`: Google reads the snake_case spelling too. */
function keyOf(o: Json, name: string): string {
  if (o[name] !== undefined) return name;
  const snake = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return o[snake] !== undefined ? snake : name;
}

const isCall = (part: unknown): boolean => isObject(field(part, 'functionCall'));

/** A part with nothing left to send: no field, or only an empty text. */
const isEmpty = (part: Json): boolean => Object.entries(part).every(([k, v]) => k === 'text' && v === '');

/** The seals a part's signature holds; undefined when it is no seal (Gemini's own, or none). */
function sealsOn(part: Json): string[] | undefined {
  const signature = field(part, 'thoughtSignature');
  return typeof signature === 'string' ? unpackSeals(signature) : undefined;
}

/** One content's parts without seals, and how many were taken out; undefined parts: none were. */
function stripParts(parts: readonly unknown[]): { parts: unknown[] | undefined; dropped: number } {
  let dropped = 0;
  const out: unknown[] = [];
  for (const part of parts) {
    const seals = isObject(part) ? sealsOn(part) : undefined;
    if (seals === undefined) {
      out.push(part);
      continue;
    }
    dropped += seals.length;
    const { [keyOf(part as Json, 'thoughtSignature')]: _seal, ...rest } = part as Json;
    if (!isEmpty(rest)) out.push(rest);
  }
  if (dropped === 0) return { parts: undefined, dropped };
  // Gemini 3 refuses a function-calling turn whose first call has no signature.
  const first = out.findIndex(isCall);
  if (first >= 0 && field(out[first], 'thoughtSignature') === undefined) out[first] = { ...(out[first] as Json), thoughtSignature: SKIP_SIGNATURE };
  return { parts: out, dropped };
}

/** The request's `contents` without seals; undefined when it held none. */
function stripRequest(request: Json): Stripped | undefined {
  const key = keyOf(request, 'contents');
  const contents = request[key];
  if (!Array.isArray(contents)) return undefined;
  let dropped = 0;
  const out: unknown[] = [];
  for (const content of contents) {
    const parts = isObject(content) ? field(content, 'parts') : undefined;
    const stripped = Array.isArray(parts) ? stripParts(parts) : undefined;
    if (stripped?.parts === undefined) {
      out.push(content);
      continue;
    }
    dropped += stripped.dropped;
    // A turn that was only sealed reasoning is left out whole: Google refuses a content without parts.
    if (stripped.parts.length > 0) out.push({ ...(content as Json), [keyOf(content as Json, 'parts')]: stripped.parts });
  }
  return dropped === 0 ? undefined : { body: { ...request, [key]: out }, dropped };
}

/** Takes the seals out of a create request, or of a count's (its `contents`, or its whole `generateContentRequest`). */
export function stripSeals(raw: Buffer, body: () => Json): Stripped | undefined {
  if (raw.indexOf(MARK) === -1) return undefined;
  const json = body();
  const wrappedKey = keyOf(json, 'generateContentRequest');
  const wrapped = json[wrappedKey];
  if (isObject(wrapped)) {
    const inner = stripRequest(wrapped);
    return inner === undefined ? undefined : { body: { ...json, [wrappedKey]: inner.body }, dropped: inner.dropped };
  }
  return stripRequest(json);
}
