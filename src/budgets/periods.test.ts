import { describe, expect, it } from 'vitest';
import { periodAt } from './periods.js';

const iso = (t: number) => new Date(t).toISOString();

describe('periodAt', () => {
  it.each([
    ['a day in UTC', 'day', 'UTC', '2026-11-26T18:00:00Z', '2026-11-26T00:00:00.000Z', '2026-11-27T00:00:00.000Z'],
    ['a day in Paris in winter (UTC+1)', 'day', 'Europe/Paris', '2026-11-26T23:30:00Z', '2026-11-26T23:00:00.000Z', '2026-11-27T23:00:00.000Z'],
    ['a day in Kathmandu (UTC+5:45)', 'day', 'Asia/Kathmandu', '2026-11-26T12:00:00Z', '2026-11-25T18:15:00.000Z', '2026-11-26T18:15:00.000Z'],
    // Spring forward in Paris on 2026-03-29: the day lasts 23 hours.
    ['the short day of spring', 'day', 'Europe/Paris', '2026-03-29T12:00:00Z', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z'],
    // Fall back in New York on 2026-11-01: 25 hours.
    ['the long day of autumn', 'day', 'America/New_York', '2026-11-01T12:00:00Z', '2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z'],
    // Havana moves its clocks at midnight: on 2026-03-08 the day starts at 01:00 local, the jump.
    ['a day whose midnight the clocks skip', 'day', 'America/Havana', '2026-03-08T12:00:00Z', '2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z'],
    ['a week from Monday', 'week', 'UTC', '2026-11-26T18:00:00Z', '2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z'],
    ['a week on its Monday', 'week', 'UTC', '2026-11-23T00:00:00Z', '2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z'],
    ['a week on its Sunday', 'week', 'UTC', '2026-11-29T23:59:59Z', '2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z'],
    ['a week across a month', 'week', 'UTC', '2026-12-02T10:00:00Z', '2026-11-30T00:00:00.000Z', '2026-12-07T00:00:00.000Z'],
    ['a month', 'month', 'UTC', '2026-11-26T18:00:00Z', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
    ['December to January', 'month', 'Asia/Tokyo', '2026-12-31T16:00:00Z', '2026-12-31T15:00:00.000Z', '2027-01-31T15:00:00.000Z'],
    ['a month across a clock change', 'month', 'Europe/Paris', '2026-10-15T12:00:00Z', '2026-09-30T22:00:00.000Z', '2026-10-31T23:00:00.000Z'],
  ] as const)('%s', (_name, per, zone, now, start, end) => {
    const p = periodAt(per, zone, Date.parse(now));
    expect([iso(p.start), iso(p.end)]).toEqual([start, end]);
    expect(p.start).toBeLessThanOrEqual(Date.parse(now));
    expect(p.end).toBeGreaterThan(Date.parse(now));
  });
});
