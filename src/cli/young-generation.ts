/**
 * V8's young generation held at its first size while `serve` starts, and left to grow again once it serves.
 *
 * V8 doubles the young generation after a scavenge in which much of it survived. A start is all survivors (the
 * modules, the config, the keys, the tables built from them are kept for good), so it grows the young generation
 * to its largest in a process that then sits idle: the size is set by the start, not by the traffic. Held, the start's objects are promoted to the old generation as they would be anyway; once
 * the gateway serves, the young generation grows with the requests as before (docs/performance.md, "Memory at start").
 *
 * V8 reads its growth factor each time it grows the young generation, so setting the flag takes effect at once.
 */
import { setFlagsFromString } from 'node:v8';

/** V8's default growth factor, which `release` puts back. */
const DEFAULT_GROWTH = 2;

export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

export function releaseYoungGeneration(): void {
  setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH}`);
}
