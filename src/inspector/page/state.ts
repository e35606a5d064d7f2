/**
 * The page's state: the rows it knows, the filter, pause. Views subscribe and are
 * redrawn once per animation frame however many rows arrive in it.
 */
import type { Connection } from './api.js';
import { NO_FILTER, type Filter } from '../common/filter.js';
import type { ExchangeList, ExchangeSummary, StoreUse } from '../common/types.js';

export type Meta = Omit<ExchangeList, 'exchanges'>;

export interface State {
  meta: Meta | undefined;
  readonly rows: Map<string, ExchangeSummary>;
  filter: Filter;
  paused: boolean;
  /** Rows that arrived while paused, applied on resume. */
  readonly queued: Map<string, ExchangeSummary>;
  connection: Connection | 'recording';
  /** Why the list could not be loaded, if it could not. */
  error: string | undefined;
}

export const state: State = {
  meta: undefined,
  rows: new Map(),
  filter: NO_FILTER,
  paused: false,
  queued: new Map(),
  connection: 'connecting',
  error: undefined,
};

const listeners = new Set<() => void>();
let scheduled = false;

export function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function changed(): void {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    for (const l of [...listeners]) l();
  });
}

/** An ended row is final: a late "started" push for it must not bring back its pending form. */
function put(map: Map<string, ExchangeSummary>, s: ExchangeSummary): void {
  const old = map.get(s.id);
  if (old && !old.pending && s.pending) return;
  map.set(s.id, s);
}

export function receive(s: ExchangeSummary, use: StoreUse): void {
  if (state.meta) state.meta = { ...state.meta, ...use };
  if (state.paused) put(state.queued, s);
  else {
    put(state.rows, s);
    trim();
  }
  changed();
}

export function loadList(list: ExchangeList): void {
  const { exchanges, ...meta } = list;
  state.meta = meta;
  // Rows pushed while the list was on its way may be newer than it: keep the ended ones.
  const fresh = new Map<string, ExchangeSummary>();
  for (const s of exchanges) fresh.set(s.id, s);
  for (const s of state.rows.values()) if (!s.pending) put(fresh, s);
  state.rows.clear();
  for (const [id, s] of fresh) state.rows.set(id, s);
  trim();
  changed();
}

export function setPaused(paused: boolean): void {
  state.paused = paused;
  if (!paused) {
    for (const s of state.queued.values()) put(state.rows, s);
    state.queued.clear();
    trim();
  }
  changed();
}

/** The server holds at most `capacity` exchanges; so does the page. */
function trim(): void {
  const capacity = state.meta?.capacity ?? 300;
  if (state.rows.size <= capacity) return;
  const oldest = [...state.rows.values()].sort((a, b) => a.time - b.time).slice(0, state.rows.size - capacity);
  for (const s of oldest) state.rows.delete(s.id);
}

/** Newest first. */
export function sortedRows(): ExchangeSummary[] {
  return [...state.rows.values()].sort((a, b) => b.time - a.time || (a.id < b.id ? 1 : -1));
}
