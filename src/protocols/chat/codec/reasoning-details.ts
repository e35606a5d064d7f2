/**
 * OpenRouter-style `reasoning_details`: a list of entries (`reasoning.text` with `text` and
 * `signature`, `reasoning.summary` with `summary`, `reasoning.encrypted` with `data`; each may have
 * `id`, `format`, `index`). Models behind it may need them back on the assistant message of a tool
 * loop, so they travel as the upstream sent them. In a stream an entry comes in pieces that share
 * its `index`: its text grows, its signature or id come on a later piece.
 */
import { isObject, num, type Json } from './read.js';

/** The entries of a `reasoning_details` value; undefined when there are none. */
export function readDetails(value: unknown): Json[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const entries = value.filter(isObject);
  return entries.length > 0 ? entries : undefined;
}

/** The fields whose pieces add up; any other field of a later piece replaces the earlier value. */
const GROWING = new Set(['text', 'summary', 'data']);

export interface DetailsAccumulator {
  add(entries: readonly Json[]): void;
  /** The entries so far, pieces merged. */
  readonly entries: readonly Json[];
}

/**
 * Merges streamed pieces into whole entries. Each piece is merged once into the entry of its index,
 * so a stream costs one step per piece however long it runs.
 */
export function createDetailsAccumulator(): DetailsAccumulator {
  const entries: Json[] = [];
  const byIndex = new Map<number, Json>();
  return {
    add(pieces) {
      for (const piece of pieces) {
        const index = num(piece.index);
        const entry = index !== undefined ? byIndex.get(index) : undefined;
        if (entry === undefined) {
          const fresh = { ...piece };
          entries.push(fresh);
          if (index !== undefined) byIndex.set(index, fresh);
          continue;
        }
        for (const [key, value] of Object.entries(piece)) {
          if (value === null || value === undefined) continue;
          const before = entry[key];
          entry[key] = GROWING.has(key) && typeof before === 'string' && typeof value === 'string' ? before + value : value;
        }
      }
    },
    get entries() {
      return entries;
    },
  };
}
