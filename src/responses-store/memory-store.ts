/**
 * The responses store in this process's memory: one table for all key groups (the group is part of
 * each key), the least recently used answer evicted first once the byte cap is reached, and an
 * answer past its expiry treated as gone (and dropped) when it is next asked for or reached by eviction.
 */
import type { Json } from '../protocols/json.js';
import type { ResponsesStore, StoredResponse, StoreSettings } from './store.js';

interface Entry {
  readonly key: string;
  readonly response: StoredResponse;
  readonly bytes: number;
  readonly expiresAt: number;
  /** The keys of its output items in the item index. */
  readonly itemKeys: readonly string[];
}

/** The group's length first, so no two (group, id) pairs share a key whatever characters the caller's id holds. */
const keyOf = (group: string, id: string): string => `${group.length}:${group}:${id}`;

const idOf = (item: Json): string | undefined => (typeof item.id === 'string' && item.id !== '' ? item.id : undefined);

export function createMemoryResponsesStore(): ResponsesStore {
  // A Map iterates in insertion order: deleting and setting again on use keeps the least recently used first.
  const entries = new Map<string, Entry>();
  const items = new Map<string, { readonly entry: Entry; readonly item: Json }>();
  let bytes = 0;

  const drop = (entry: Entry): void => {
    if (entries.get(entry.key) !== entry) return;
    entries.delete(entry.key);
    bytes -= entry.bytes;
    for (const k of entry.itemKeys) if (items.get(k)?.entry === entry) items.delete(k);
  };
  /** The live entry under `key`, marked as just used; an expired one is dropped. */
  const live = (key: string, now: number): Entry | undefined => {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      drop(entry);
      return undefined;
    }
    entries.delete(key);
    entries.set(key, entry);
    return entry;
  };

  return {
    response(group, id, now) {
      return live(keyOf(group, id), now)?.response;
    },
    item(group, id, now) {
      const found = items.get(keyOf(group, id));
      if (found === undefined || live(found.entry.key, now) !== found.entry) return undefined;
      return found.item;
    },
    put(group, response, settings: StoreSettings, now) {
      const key = keyOf(group, response.id);
      const old = entries.get(key);
      if (old) drop(old);
      const size = Buffer.byteLength(JSON.stringify(response));
      // An answer larger than the whole store is not kept, and evicts nothing.
      if (size > settings.maxBytes) return;
      for (const entry of entries.values()) {
        if (bytes + size <= settings.maxBytes) break;
        drop(entry);
      }
      const withIds = response.output.flatMap((item) => {
        const id = idOf(item);
        return id === undefined ? [] : [{ key: keyOf(group, id), item }];
      });
      const entry: Entry = { key, response, bytes: size, expiresAt: now + settings.ttlMs, itemKeys: withIds.map((i) => i.key) };
      entries.set(key, entry);
      bytes += size;
      for (const { key: k, item } of withIds) items.set(k, { entry, item });
    },
  };
}
