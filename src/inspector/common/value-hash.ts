/**
 * A short hash of a JSON value, equal for deep-equal values (object key order does
 * not matter). Objects and arrays hash their children's hashes, so hashing a whole
 * body and every subtree in it is linear in its size; results are memoised per object.
 */
export type Hasher = (value: unknown) => string;

/** cyrb53: a fast 53-bit string hash (public domain, bryc). Collisions are negligible at body sizes. */
function cyrb53(text: string, seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

export function createHasher(): Hasher {
  const memo = new WeakMap<object, string>();
  const hash: Hasher = (value) => {
    if (value === null || typeof value !== 'object') return cyrb53(`${typeof value}:${String(value)}`);
    const known = memo.get(value);
    if (known !== undefined) return known;
    let text: string;
    if (Array.isArray(value)) {
      text = `[${value.map(hash).join(',')}]`;
    } else {
      const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      text = `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${hash(v)}`).join(',')}}`;
    }
    const h = cyrb53(text);
    memo.set(value, h);
    return h;
  };
  return hash;
}
