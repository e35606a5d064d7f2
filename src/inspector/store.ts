/**
 * The inspector's memory: the last `capacity` exchanges, oldest dropped first, and
 * fewer when their bodies would pass `maxBytes`. Live entries keep the gateway's
 * own `RequestRecord` (with its captured exchange) as it is: nothing is copied or
 * serialised until someone opens it. Nothing is written to disk.
 */
import type { ExchangeJson } from '../log/exchange-json.js';
import type { RequestRecord } from '../log/record.js';
import { summaryOfJson, summaryOfRecord } from './summary.js';
import type { ExchangeSummary } from './common/types.js';

export const DEFAULT_CAPACITY = 300;
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** What an entry costs beyond its bodies (the record, headers, the summary), roughly. */
export const ENTRY_OVERHEAD = 2048;

export type StoreEntry =
  | { readonly kind: 'live'; readonly id: string; readonly record: RequestRecord; ended: boolean; bytes: number; summary?: ExchangeSummary }
  | { readonly kind: 'recorded'; readonly id: string; readonly json: ExchangeJson; readonly ended: true; bytes: number; summary?: ExchangeSummary };

export interface StoreOptions {
  readonly capacity?: number;
  readonly maxBytes?: number;
}

export interface Store {
  readonly capacity: number;
  readonly maxBytes: number;
  /** Bytes held now (bodies plus overhead). */
  readonly bytes: number;
  /** Entries dropped to stay within the bounds, since the start. */
  readonly evicted: number;
  readonly size: number;
  /** A request has started: it is held from now on, its bytes counted when it ends. */
  addLive(record: RequestRecord): StoreEntry;
  /** The request has ended: its bodies are complete; returns its entry unless it was already dropped. */
  endLive(record: RequestRecord): StoreEntry | undefined;
  addRecorded(json: ExchangeJson, bytes: number): StoreEntry;
  get(id: string): StoreEntry | undefined;
  /** Newest first. */
  entries(): StoreEntry[];
}

/** The row for an entry; ended entries build it once. */
export function summaryOf(entry: StoreEntry): ExchangeSummary {
  if (entry.summary) return entry.summary;
  if (entry.kind === 'recorded') {
    entry.summary = summaryOfJson(entry.json);
    return entry.summary;
  }
  const summary = summaryOfRecord(entry.record, !entry.ended);
  if (entry.ended) entry.summary = summary;
  return summary;
}

export function createStore(options: StoreOptions = {}): Store {
  const capacity = Math.max(1, options.capacity ?? DEFAULT_CAPACITY);
  const maxBytes = Math.max(0, options.maxBytes ?? DEFAULT_MAX_BYTES);
  // A ring: `slots[(head + i) % capacity]` for i < count is the i-th oldest entry.
  const slots: (StoreEntry | undefined)[] = new Array<StoreEntry | undefined>(capacity);
  const byId = new Map<string, StoreEntry>();
  /** For recorded ids seen more than once: the suffix to try next. */
  const repeats = new Map<string, number>();
  let head = 0;
  let count = 0;
  let bytes = 0;
  let evicted = 0;

  const dropOldest = () => {
    const old = slots[head];
    slots[head] = undefined;
    head = (head + 1) % capacity;
    count--;
    evicted++;
    if (old) {
      bytes -= old.bytes;
      byId.delete(old.id);
    }
  };
  // The newest entry stays even when it alone passes the byte cap: capture already bounds it.
  const evictToFit = () => {
    while (count > 1 && bytes > maxBytes) dropOldest();
  };
  const push = (entry: StoreEntry) => {
    if (count === capacity) dropOldest();
    slots[(head + count) % capacity] = entry;
    count++;
    byId.set(entry.id, entry);
    bytes += entry.bytes;
    evictToFit();
    return entry;
  };

  return {
    capacity,
    maxBytes,
    get bytes() {
      return bytes;
    },
    get evicted() {
      return evicted;
    },
    get size() {
      return count;
    },
    addLive(record) {
      return push({ kind: 'live', id: record.id, record, ended: false, bytes: ENTRY_OVERHEAD });
    },
    endLive(record) {
      // Nothing kept (no page has been open): no lookup of an id that would have to be hashed first.
      if (count === 0) return undefined;
      const entry = byId.get(record.id);
      if (entry?.kind !== 'live') return undefined;
      entry.ended = true;
      const size = ENTRY_OVERHEAD + (record.exchange?.bytes ?? 0);
      bytes += size - entry.bytes;
      entry.bytes = size;
      evictToFit();
      return byId.get(record.id);
    },
    addRecorded(json, size) {
      let id = json.id;
      // Recordings appended over several runs could repeat an id; each line stays its own row. The next
      // suffix per id is remembered, so a file of one id repeated stays linear to load.
      for (let n = repeats.get(json.id) ?? 2; byId.has(id); n++) {
        id = `${json.id}~${n}`;
        repeats.set(json.id, n + 1);
      }
      return push({ kind: 'recorded', id, json: id === json.id ? json : { ...json, id }, ended: true, bytes: size });
    },
    get: (id) => byId.get(id),
    entries() {
      const out: StoreEntry[] = [];
      for (let i = count - 1; i >= 0; i--) {
        const e = slots[(head + i) % capacity];
        if (e) out.push(e);
      }
      return out;
    },
  };
}
