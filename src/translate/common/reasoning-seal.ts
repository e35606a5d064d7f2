/**
 * Reasoning that the caller's protocol cannot carry in the upstream's own form travels in a
 * seal: a string the caller stores and sends back unchanged (a Messages `thinking.signature`),
 * holding what the upstream needs on the next turn (its encrypted reasoning, item id, reasoning
 * details) and an HMAC over that and the reasoning text, keyed by the install's secret. So a
 * caller cannot forge reasoning into a turn or alter its text, a seal made by another install
 * does not open, and a seal is never mistaken for Anthropic's own signature (it is not sent to
 * Anthropic: a Messages upstream gets only reasoning signed by Anthropic).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Json } from '../../protocols/json.js';

const PREFIX = 'mgw1.';
const MAC_BYTES = 32;

/** What a seal carries besides the reasoning text. */
export interface SealedReasoning {
  /** An OpenAI Responses reasoning item's `encrypted_content`. */
  readonly encrypted?: string;
  /** The reasoning item's id. */
  readonly id?: string;
  /** OpenRouter-style `reasoning_details` entries, as the upstream sent them. */
  readonly details?: readonly Json[];
  /** The text was the upstream's reasoning summary, not its reasoning. */
  readonly summary?: boolean;
  /** Anthropic's signature over the thinking (for a caller whose protocol has no field for it: Chat). */
  readonly signature?: string;
  /** Anthropic's redacted thinking, likewise. */
  readonly redacted?: string;
  /**
   * The model's summary of a compacted conversation: a Responses `compaction` item the gateway
   * answered carries only this seal, so the text rides inside it (sealed over the empty text).
   */
  readonly compaction?: string;
  /**
   * The reasoning text itself, for a caller that keeps only the seal and not the text beside it
   * (Gemini callers keep a part's `thoughtSignature` but may drop its thought parts): sealed over
   * the empty text, like `compaction`.
   */
  readonly text?: string;
}

export interface ReasoningSeal {
  seal(text: string, carried: SealedReasoning): string;
  /** What `token` carries, when it is this install's seal over exactly `text`; otherwise undefined. */
  open(token: string, text: string): SealedReasoning | undefined;
}

export const isSeal = (token: string): boolean => token.startsWith(PREFIX);

interface Payload {
  e?: string;
  i?: string;
  d?: readonly Json[];
  s?: 1;
  g?: string;
  r?: string;
  c?: string;
  t?: string;
}

export function reasoningSeal(key: Buffer): ReasoningSeal {
  const mac = (payload: string, text: string): Buffer => createHmac('sha256', key).update(`${PREFIX}${payload}.`).update(text, 'utf8').digest();
  return {
    seal(text, carried) {
      const payload: Payload = {
        ...(carried.encrypted !== undefined ? { e: carried.encrypted } : {}),
        ...(carried.id !== undefined ? { i: carried.id } : {}),
        ...(carried.details !== undefined ? { d: carried.details } : {}),
        ...(carried.summary ? { s: 1 as const } : {}),
        ...(carried.signature !== undefined ? { g: carried.signature } : {}),
        ...(carried.redacted !== undefined ? { r: carried.redacted } : {}),
        ...(carried.compaction !== undefined ? { c: carried.compaction } : {}),
        ...(carried.text !== undefined ? { t: carried.text } : {}),
      };
      const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${PREFIX}${encoded}.${mac(encoded, text).toString('base64url')}`;
    },
    open(token, text) {
      if (!isSeal(token)) return undefined;
      const rest = token.slice(PREFIX.length);
      const dot = rest.lastIndexOf('.');
      if (dot === -1) return undefined;
      const encoded = rest.slice(0, dot);
      const given = Buffer.from(rest.slice(dot + 1), 'base64url');
      if (given.length !== MAC_BYTES || !timingSafeEqual(given, mac(encoded, text))) return undefined;
      let payload: Payload;
      try {
        payload = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Payload;
      } catch {
        return undefined;
      }
      return {
        ...(typeof payload.e === 'string' ? { encrypted: payload.e } : {}),
        ...(typeof payload.i === 'string' ? { id: payload.i } : {}),
        ...(Array.isArray(payload.d) ? { details: payload.d } : {}),
        ...(payload.s === 1 ? { summary: true } : {}),
        ...(typeof payload.g === 'string' ? { signature: payload.g } : {}),
        ...(typeof payload.r === 'string' ? { redacted: payload.r } : {}),
        ...(typeof payload.c === 'string' ? { compaction: payload.c } : {}),
        ...(typeof payload.t === 'string' ? { text: payload.t } : {}),
      };
    },
  };
}
