/**
 * The list's filter looks in bodies too: the kept exchanges whose captured bytes (the client's request,
 * each upstream request and answer, the response) hold every word of the query, as typed. One
 * `indexOf` per body and word over bytes already in memory, so a search costs at most a pass over
 * `inspector.memoryMiB`; the page asks at most once per pause in typing.
 */
import type { CapturedBody } from '../log/exchange.js';
import type { Arena } from './arena.js';
import { packedBytes, type PackedBody, type PackedDelta } from './packed.js';
import type { StoreEntry } from './store.js';

/** Longest query searched; longer ones are cut. */
export const MAX_QUERY_CHARS = 200;
/** Words of a query searched for at most. */
const MAX_WORDS = 8;

export function queryWords(q: string): Buffer[] {
  return q
    .slice(0, MAX_QUERY_CHARS)
    .split(/\s+/)
    .filter((w) => w !== '')
    .slice(0, MAX_WORDS)
    .map((w) => Buffer.from(w));
}

const capturedHas = (body: CapturedBody, word: Buffer) =>
  body.chunks.some((c) => (typeof c.data === 'string' ? c.data.includes(word.toString()) : c.data.includes(word)));
const packedHas = (body: PackedBody | PackedDelta, word: Buffer, arena: Arena) => packedBytes(body, arena)?.includes(word) === true;

/** Whether one of the entry's bodies holds `word` (a word split across two chunks of a live stream is missed). */
function entryHas(entry: StoreEntry, word: Buffer): boolean {
  switch (entry.kind) {
    case 'live': {
      const x = entry.record.exchange;
      return x !== undefined && (capturedHas(x.request, word) || capturedHas(x.response, word) || x.attempts.some((a) => capturedHas(a.body, word) || capturedHas(a.response, word)));
    }
    case 'kept': {
      const x = entry.packed.exchange;
      const { arena } = entry;
      return (
        x !== undefined &&
        (packedHas(x.request, word, arena) || packedHas(x.response, word, arena) || x.attempts.some((a) => packedHas(a.body, word, arena) || packedHas(a.response, word, arena)))
      );
    }
    case 'recorded':
      // A recording's bodies are parsed trees; the page's filter searches their rows' facts.
      return false;
  }
}

/** The ids of the entries whose bodies hold every word. */
export function searchBodies(entries: readonly StoreEntry[], words: readonly Buffer[]): string[] {
  if (words.length === 0) return [];
  return entries.filter((e) => words.every((w) => entryHas(e, w))).map((e) => e.id);
}
