/**
 * Where the inspector's history keeps its bodies: a ring of bytes, `size` long, in a few slabs allocated
 * once as they are first needed. A body is copied in at the write position and read back by where it
 * went; the oldest bytes are written over first, so the oldest bodies are the first to go, and the
 * memory held never passes `size`.
 *
 * Why not keep the buffers the request came with: a hundred kilobytes a request, held for a few hundred
 * requests, outlive the young generation and are promoted, and the old generation then fills with
 * buffers that die there, each freed only by a full collection of the whole heap. Copied into slabs that
 * live as long as the gateway, the request's own buffers die young, as they do with no inspector.
 */

export const SLAB_BYTES = 1024 * 1024;

export interface Arena {
  /** Bytes the ring holds at most. */
  readonly size: number;
  /** Bytes held now (at most `size`). */
  readonly used: number;
  /** Copies `data` in; its position (for `read`), or -1 when it is larger than the ring. */
  write(data: Buffer): number;
  /** The `length` bytes written at `at`, copied out; undefined once they have been written over. */
  read(at: number, length: number): Buffer | undefined;
  /** Whether the bytes written at `at` are still there. */
  holds(at: number): boolean;
}

export function createArena(size: number): Arena {
  const slabBytes = Math.max(1, Math.min(SLAB_BYTES, size));
  const slabs: Buffer[] = [];
  const total = Math.max(slabBytes, Math.ceil(size / slabBytes) * slabBytes);
  /** Bytes written since the start: the next write's position. */
  let written = 0;
  const slab = (i: number) => (slabs[i] ??= Buffer.allocUnsafeSlow(slabBytes));
  const holds = (at: number) => at >= 0 && at >= written - total;

  return {
    size: total,
    get used() {
      return Math.min(written, total);
    },
    write(data) {
      if (data.length > total) return -1;
      const at = written;
      const startSlab = Math.floor((at % total) / slabBytes);
      const startOffset = (at % total) - startSlab * slabBytes;
      written += data.length;
      // Most bodies fit where the ring is: one copy, without Buffer#copy's argument checks.
      if (startOffset + data.length <= slabBytes) {
        slab(startSlab).set(data, startOffset);
        return at;
      }
      let done = 0;
      while (done < data.length) {
        const physical = (at + done) % total;
        const i = Math.floor(physical / slabBytes);
        const offset = physical - i * slabBytes;
        const n = Math.min(data.length - done, slabBytes - offset);
        data.copy(slab(i), offset, done, done + n);
        done += n;
      }
      return at;
    },
    read(at, length) {
      if (!holds(at) || at + length > written) return undefined;
      const out = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const physical = (at + done) % total;
        const i = Math.floor(physical / slabBytes);
        const offset = physical - i * slabBytes;
        const n = Math.min(length - done, slabBytes - offset);
        slab(i).copy(out, done, offset, offset + n);
        done += n;
      }
      return out;
    },
    holds,
  };
}
