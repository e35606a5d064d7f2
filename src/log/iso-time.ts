/**
 * Timestamps for the lines the gateway writes once per request (the log file, the usage ledger):
 * `toISOString`, with the part up to the second made once per second rather than once per line.
 */

let isoSecond = Number.NaN;
let isoPrefix = '';

/** `new Date(epochMs).toISOString()`. */
export function isoTime(epochMs: number): string {
  if (!Number.isInteger(epochMs)) return new Date(epochMs).toISOString();
  const second = Math.floor(epochMs / 1000);
  if (second !== isoSecond) {
    const iso = new Date(second * 1000).toISOString();
    if (iso.length !== 24) return new Date(epochMs).toISOString(); // years past 9999, or before year 0
    isoSecond = second;
    isoPrefix = iso.slice(0, 20);
  }
  return `${isoPrefix}${String(epochMs - second * 1000).padStart(3, '0')}Z`;
}
