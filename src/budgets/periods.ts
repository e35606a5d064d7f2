/**
 * Calendar periods in a time zone: the day from its midnight, the week from Monday, the month from its
 * first, each ending where the next starts. Worked out with Intl.DateTimeFormat, whose zone data is
 * the runtime's: a day that starts at another hour, or lasts 23 or 25 hours (daylight saving time), is
 * what the zone says. A period is worked out once and kept until it ends.
 */
import { assertNever } from '../assert-never.js';
import type { BudgetPeriod } from '../config/types.js';

export interface Period {
  /** Epoch ms of its first instant. */
  readonly start: number;
  /** Epoch ms of the next period's first instant. */
  readonly end: number;
}

/** The machine's zone, what `server.timeZone` defaults to. */
export const machineTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

interface Wall {
  readonly y: number;
  readonly m: number;
  readonly d: number;
  readonly h: number;
  readonly mi: number;
  readonly s: number;
}

/** The wall-clock date and time at `t` in the zone. */
export function wallAt(timeZone: string, t: number): Wall {
  const out: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(t)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return { y: out.year!, m: out.month!, d: out.day!, h: out.hour!, mi: out.minute!, s: out.second! };
}

/** How far the zone's wall clock is ahead of UTC at `t`, in ms. */
function offsetAt(timeZone: string, t: number): number {
  const w = wallAt(timeZone, t);
  return Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi, w.s) - (t - (((t % 1000) + 1000) % 1000));
}

/**
 * The first instant of a local date (month and day may overflow: Date.UTC's arithmetic). Midnight
 * under the offset before and after a change are both tried; the earliest that falls on the date
 * wins, so a day whose midnight the clocks skip starts when they jump.
 */
export function dayStart(timeZone: string, y: number, m: number, d: number): number {
  const wall = Date.UTC(y, m - 1, d);
  const date = new Date(wall);
  const want = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
  const first = wall - offsetAt(timeZone, wall);
  const second = wall - offsetAt(timeZone, first);
  let best: number | undefined;
  for (const t of [first, second]) {
    const w = wallAt(timeZone, t);
    if (w.y === want[0] && w.m === want[1] && w.d === want[2] && (best === undefined || t < best)) best = t;
  }
  return best ?? Math.min(first, second);
}

/** The period of kind `per` holding `now`, in the zone. */
export function periodAt(per: BudgetPeriod, timeZone: string, now: number): Period {
  const w = wallAt(timeZone, now);
  switch (per) {
    case 'day':
      return { start: dayStart(timeZone, w.y, w.m, w.d), end: dayStart(timeZone, w.y, w.m, w.d + 1) };
    case 'week': {
      // Monday is the first day of the week (ISO 8601).
      const back = (new Date(Date.UTC(w.y, w.m - 1, w.d)).getUTCDay() + 6) % 7;
      return { start: dayStart(timeZone, w.y, w.m, w.d - back), end: dayStart(timeZone, w.y, w.m, w.d - back + 7) };
    }
    case 'month':
      return { start: dayStart(timeZone, w.y, w.m, 1), end: dayStart(timeZone, w.y, w.m + 1, 1) };
    default:
      return assertNever(per);
  }
}
