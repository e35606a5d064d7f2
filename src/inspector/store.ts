/**
 * The inspector's memory: the facts of the last `capacity` exchanges, oldest dropped first, and
 * their bodies while they fit in `maxBytes` (past it, the oldest lose their bodies first and keep
 * their row). A request in flight while a page is open is held as the gateway's own `RequestRecord`
 * (its pending row); once a request ends it is packed (`packed.ts`): its facts, and its bodies copied
 * into a ring of bytes (`arena.ts`) that writes over the oldest. One kept without its bodies goes
 * into columns (`rows.ts`) unless it has a rare fact, and becomes an entry only when read. A
 * recording's exchanges are held as read, and lose their bodies oldest first the same way. Nothing is parsed or serialised until someone
 * opens it, and nothing is written to disk.
 *
 * Only live and recorded entries are found by id in a map: a kept entry is added on every request
 * with history on, and hashing its fresh id into a map (and out again when it is dropped) is work a
 * request would pay for a lookup made only when someone opens a row. Those scan the ring instead.
 */
import type { ExchangeJson } from '../log/exchange-json.js';
import type { RequestRecord } from '../log/record.js';
import { createArena, type Arena } from './arena.js';
import { bodiesHeld, packRecord, unpackRecord, type PackedRecord } from './packed.js';
import { createRows } from './rows.js';
import { summaryOfJson, summaryOfRecord } from './summary.js';
import type { ExchangeSummary } from './common/types.js';

export const DEFAULT_CAPACITY = 300;
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** What an entry costs beyond its bodies (the record, headers, the summary), roughly. */
export const ENTRY_OVERHEAD = 2048;

interface Slot {
  /** Its place in the order of arrival: the ring's position, and the bodies' eviction cursor. */
  readonly seq: number;
  bytes: number;
  summary?: ExchangeSummary;
}

export type StoreEntry =
  | (Slot & { readonly kind: 'live'; readonly id: string; readonly record: RequestRecord; readonly ended: false })
  | (Slot & {
      readonly kind: 'kept';
      readonly id: string;
      readonly packed: PackedRecord;
      readonly arena: Arena;
      readonly ended: true;
      /** Its row only: history kept as many requests whole as `inspector.bodiesPerSecond` allows (body-rate.ts). */
      readonly bodiesSkipped: boolean;
    })
  | (Slot & { readonly kind: 'recorded'; readonly id: string; json: ExchangeJson; readonly ended: true; bodiesDropped: boolean });

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
  /** A request has started while someone watches: it is held from now on (a pending row), its bytes counted when it ends. */
  addLive(record: RequestRecord): StoreEntry;
  /** The request has ended: its live entry is packed; returns it unless it was never added or already dropped. */
  endLive(record: RequestRecord): StoreEntry | undefined;
  /**
   * A request that had no live entry has ended (history): kept as the newest, its bodies only when
   * `whole`; `newest()` is its entry.
   */
  addEnded(record: RequestRecord, whole: boolean): void;
  addRecorded(json: ExchangeJson, bytes: number): StoreEntry;
  /** The facts of an exchange from before a restart (`from-ledger.ts`): a row without bodies, so marked. */
  addRestored(json: ExchangeJson): StoreEntry;
  get(id: string): StoreEntry | undefined;
  newest(): StoreEntry | undefined;
  /** Newest first. */
  entries(): StoreEntry[];
}

/** The record an entry stands for (the bodies unpacked), for the JSON form. */
export function recordOf(entry: StoreEntry & { readonly kind: 'live' | 'kept' }): RequestRecord {
  return entry.kind === 'live' ? entry.record : unpackRecord(entry.packed, entry.arena);
}

/** The row for an entry; ended entries build it once (and say so again once their bodies are gone). */
export function summaryOf(entry: StoreEntry): ExchangeSummary {
  switch (entry.kind) {
    case 'recorded':
      entry.summary ??= withDropped(summaryOfJson(entry.json), entry.bodiesDropped);
      return entry.summary;
    case 'kept': {
      if (entry.bodiesSkipped) {
        entry.summary ??= { ...summaryOfRecord(entry.packed.facts, false), bodiesSkipped: true };
        return entry.summary;
      }
      const held = bodiesHeld(entry.packed, entry.arena);
      if (entry.summary && (held || entry.summary.bodiesDropped)) return entry.summary;
      const base = entry.summary ?? summaryOfRecord(unpackRecord(entry.packed, entry.arena), false);
      entry.summary = withDropped(base, !held);
      return entry.summary;
    }
    case 'live':
      return summaryOfRecord(entry.record, true);
  }
}

const withDropped = (s: ExchangeSummary, dropped: boolean): ExchangeSummary => (dropped ? { ...s, bodiesDropped: true } : s);

/** The facts of a recorded exchange, without its bodies. */
function jsonFacts(json: ExchangeJson): ExchangeJson {
  const { request: _request, attempts: _attempts, response: _response, ...facts } = json;
  return facts;
}

export function createStore(options: StoreOptions = {}): Store {
  const capacity = Math.max(1, options.capacity ?? DEFAULT_CAPACITY);
  const maxBytes = Math.max(0, options.maxBytes ?? DEFAULT_MAX_BYTES);
  // A ring: `slots[seq % capacity]` for headSeq <= seq < nextSeq holds the entry that arrived seq-th,
  // or null when its facts are in `rows` at the same place (made into an entry when first read).
  const slots: (StoreEntry | null | undefined)[] = new Array<StoreEntry | null | undefined>(capacity);
  const rows = createRows(capacity);
  // Allocated slab by slab as bodies come: a store that only ever holds a recording allocates none.
  // The rows' overhead comes out of the same bound, so that rows and bodies together stay within it.
  const arena = createArena(Math.max(0, maxBytes - capacity * ENTRY_OVERHEAD));
  /** Live and recorded entries by id (kept ones are scanned for: see above). */
  const byId = new Map<string, StoreEntry>();
  /** For recorded ids seen more than once: the suffix to try next. */
  const repeats = new Map<string, number>();
  let headSeq = 0;
  let nextSeq = 0;
  /** Entries that arrived before this one have had their bodies dropped (or are still in flight). */
  let bareSeq = 0;
  let bytes = 0;
  let evicted = 0;
  /** Live entries in the ring: none (the usual case with nobody watching), and a request's end looks nothing up. */
  let live = 0;

  const count = () => nextSeq - headSeq;
  const dropOldest = () => {
    const old = slots[headSeq % capacity];
    slots[headSeq % capacity] = undefined;
    headSeq++;
    evicted++;
    if (old === null) bytes -= ENTRY_OVERHEAD;
    else if (old) {
      bytes -= old.bytes;
      if (old.kind !== 'kept') byId.delete(old.id);
      if (old.kind === 'live') live--;
    }
  };

  /** Keeps a recorded entry's row and lets its bodies go; the row is made first, while the bodies are there to read. */
  const dropBodies = (entry: StoreEntry) => {
    if (entry.kind !== 'recorded' || entry.bodiesDropped) return;
    entry.summary = { ...summaryOf(entry), bodiesDropped: true };
    entry.json = jsonFacts(entry.json);
    entry.bodiesDropped = true;
    bytes -= entry.bytes - ENTRY_OVERHEAD;
    entry.bytes = ENTRY_OVERHEAD;
  };

  // Bodies go first, oldest first; rows only when their overhead alone passes the cap. The newest
  // entry keeps its bodies even when they alone pass the cap: capture already bounds them.
  const evictToFit = () => {
    if (bytes <= maxBytes) return;
    bareSeq = Math.max(bareSeq, headSeq);
    while (bytes > maxBytes && bareSeq < nextSeq - 1) {
      const entry = slots[bareSeq % capacity];
      if (entry) dropBodies(entry);
      bareSeq++;
    }
    while (count() > 1 && bytes > maxBytes) dropOldest();
  };
  const makeRoom = () => {
    if (count() === capacity) dropOldest();
  };
  /** What arrived next into the ring (an entry, or null for a row already written to `rows`), its bytes counted. */
  const append = (slot: StoreEntry | null, size: number) => {
    slots[nextSeq % capacity] = slot;
    nextSeq++;
    bytes += size;
    evictToFit();
  };
  const push = (make: (seq: number) => StoreEntry) => {
    makeRoom();
    const entry = make(nextSeq);
    if (entry.kind !== 'kept') byId.set(entry.id, entry);
    append(entry, entry.bytes);
    return entry;
  };
  /** The entry that arrived seq-th, a row made into one the first time it is read. */
  const at = (seq: number): StoreEntry | undefined => {
    const i = seq % capacity;
    const e = slots[i];
    if (e !== null) return e;
    const entry = kept(rows.read(i), seq, false);
    slots[i] = entry;
    return entry;
  };
  // Its bodies go to the arena (which writes over the oldest), so the entry itself costs only its overhead.
  const kept = (record: RequestRecord, seq: number, whole: boolean): StoreEntry => ({
    kind: 'kept',
    id: record.id,
    seq,
    packed: packRecord(record, arena, whole),
    arena,
    ended: true,
    bodiesSkipped: !whole,
    bytes: ENTRY_OVERHEAD,
  });
  const findKept = (id: string): StoreEntry | undefined => {
    for (let seq = nextSeq - 1; seq >= headSeq; seq--) {
      const e = slots[seq % capacity];
      if (e === null ? rows.id(seq % capacity) === id : e?.kind === 'kept' && e.id === id) return at(seq);
    }
    return undefined;
  };

  return {
    capacity,
    maxBytes,
    get bytes() {
      return bytes + arena.used;
    },
    get evicted() {
      return evicted;
    },
    get size() {
      return count();
    },
    addLive(record) {
      live++;
      return push((seq) => ({ kind: 'live', id: record.id, seq, record, ended: false, bytes: ENTRY_OVERHEAD }));
    },
    endLive(record) {
      // No request in flight was added (no page open): no lookup of an id that would have to be hashed first.
      if (live === 0) return undefined;
      const found = byId.get(record.id);
      if (found?.kind !== 'live') return undefined;
      byId.delete(found.id);
      live--;
      const entry = kept(record, found.seq, true);
      slots[found.seq % capacity] = entry;
      return entry;
    },
    addEnded(record, whole) {
      makeRoom();
      // A row goes into the columns unless it has a fact they do not hold.
      if (!whole && rows.write(nextSeq % capacity, record)) append(null, ENTRY_OVERHEAD);
      else push((seq) => kept(record, seq, whole));
    },
    addRecorded(json, size) {
      let id = json.id;
      // Recordings appended over several runs could repeat an id; each line stays its own row. The next
      // suffix per id is remembered, so a file of one id repeated stays linear to load.
      for (let n = repeats.get(json.id) ?? 2; byId.has(id); n++) {
        id = `${json.id}~${n}`;
        repeats.set(json.id, n + 1);
      }
      const kept = id === json.id ? json : { ...json, id };
      return push((seq) => ({ kind: 'recorded', id, seq, json: kept, ended: true, bodiesDropped: false, bytes: size }));
    },
    addRestored(json) {
      const summary: ExchangeSummary = { ...summaryOfJson(json), bodiesDropped: true, restored: true };
      return push((seq) => ({ kind: 'recorded', id: json.id, seq, json, ended: true, bodiesDropped: true, summary, bytes: ENTRY_OVERHEAD }));
    },
    get: (id) => byId.get(id) ?? findKept(id),
    newest: () => (nextSeq > headSeq ? at(nextSeq - 1) : undefined),
    entries() {
      const out: StoreEntry[] = [];
      for (let seq = nextSeq - 1; seq >= headSeq; seq--) {
        const e = at(seq);
        if (e) out.push(e);
      }
      return out;
    },
  };
}
