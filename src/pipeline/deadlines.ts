/**
 * The total-time caps of upstream calls. Nearly every call ends long before its cap, so
 * a Node timer per call is mostly set up and torn down: a Timeout object with its async
 * id, and, each time the timers of that duration all end and another starts (any
 * gateway not under constant load), the duration's list leaving and re-entering Node's
 * timer queue. Caps of the same duration expire in the order they were set, so each
 * duration keeps its own list here, in that order, behind one unref'd Node timer set for
 * its first entry; a cancelled cap just leaves the list. A timer that finds its first
 * entry gone (cancelled) sets itself again for the new first one. Measured against a plain
 * timer per call: docs/performance.md, "Speed-only code, measured".
 */

export interface Deadline {
  /** Stops the cap from firing; does nothing once it has fired. */
  cancel(): void;
}

class Entry implements Deadline {
  prev: Entry | undefined;
  next: Entry | undefined;
  /** When it is due, on performance.now()'s clock. */
  readonly at: number;
  constructor(
    readonly lane: Lane,
    public fire: ((arg: unknown, ms: number) => void) | undefined,
    readonly arg: unknown,
  ) {
    this.at = performance.now() + lane.ms;
  }

  cancel(): void {
    if (this.fire === undefined) return;
    this.fire = undefined;
    this.lane.unlink(this);
  }
}

class Lane {
  head: Entry | undefined;
  tail: Entry | undefined;
  /** When the lane's timer is set to go off, if it is set. */
  timerAt: number | undefined;

  constructor(readonly ms: number) {}

  add(fire: (arg: unknown, ms: number) => void, arg: unknown): Entry {
    const entry = new Entry(this, fire, arg);
    if (this.tail) {
      this.tail.next = entry;
      entry.prev = this.tail;
    } else {
      this.head = entry;
    }
    this.tail = entry;
    // A timer already set goes off no later than this entry is due: it will set itself again.
    if (this.timerAt === undefined) this.arm(entry.at);
    return entry;
  }

  unlink(entry: Entry): void {
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.tail = entry.prev;
    entry.prev = entry.next = undefined;
  }

  private arm(at: number): void {
    this.timerAt = at;
    setTimeout(() => this.expire(), Math.max(1, Math.ceil(at - performance.now()))).unref();
  }

  private expire(): void {
    this.timerAt = undefined;
    const now = performance.now();
    const due: { fire: (arg: unknown, ms: number) => void; arg: unknown }[] = [];
    while (this.head && this.head.at <= now) {
      const entry = this.head;
      due.push({ fire: entry.fire!, arg: entry.arg });
      entry.fire = undefined;
      this.unlink(entry);
    }
    if (this.head) this.arm(this.head.at);
    else lanes.delete(this.ms);
    // All due caps fire even if one throws; the first error is then thrown, as from a timer.
    let failure: { err: unknown } | undefined;
    for (const { fire, arg } of due) {
      try {
        fire(arg, this.ms);
      } catch (err) {
        failure ??= { err };
      }
    }
    if (failure) throw failure.err;
  }
}

const lanes = new Map<number, Lane>();

/**
 * Calls `fire(arg, ms)` after `ms` milliseconds unless cancelled first. `arg` lets a caller pass one
 * function made once rather than a closure per call (docs/performance.md, "A small request's allocations").
 */
export function deadline<T>(ms: number, fire: (arg: T, ms: number) => void, arg?: T): Deadline {
  let lane = lanes.get(ms);
  if (lane === undefined) {
    lane = new Lane(ms);
    lanes.set(ms, lane);
  }
  return lane.add(fire as (arg: unknown, ms: number) => void, arg);
}
