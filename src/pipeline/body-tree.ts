/**
 * The caller's parsed request body, held only while something may still read it.
 *
 * A parsed agent request is larger than its bytes. Passthrough needs the objects only to inspect
 * and route the request; afterwards the original bytes go upstream. Held for the life of each
 * request, the trees of the requests in flight would survive every young-generation collection,
 * which copies and then promotes them (docs/performance.md, "Releasing the parsed body"). So
 * passthrough releases the tree once the upstream bytes are ready, and whatever asks later
 * (a fallback route, the echo provider) gets the bytes parsed again.
 */
import { parseJsonBody } from './read.js';

export interface BodyTree {
  /** The parsed body: the one parsed on arrival, or the bytes parsed again after `release`. */
  get(): Record<string, unknown>;
  /** Lets the parsed objects go; the next `get` parses the bytes again. */
  release(): void;
}

export function bodyTree(raw: Buffer, parsed: Record<string, unknown>): BodyTree {
  let tree: Record<string, unknown> | undefined = parsed;
  return {
    // The bytes parsed into an object once already, so parsing them again cannot fail.
    get: () => (tree ??= parseJsonBody(raw) as Record<string, unknown>),
    release: () => {
      tree = undefined;
    },
  };
}
