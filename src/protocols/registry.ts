/**
 * The protocols the gateway speaks, each a module (`<id>/protocol.ts`). A new protocol is its
 * folder plus one line here; `Protocol` (types.ts) names the keys.
 */
import { chat } from './chat/protocol.js';
import { messages } from './messages/protocol.js';
import type { ProtocolModule } from './protocol.js';
import { responses } from './responses/protocol.js';
import { PROTOCOLS, type Protocol } from './types.js';

export const protocols: Readonly<Record<Protocol, ProtocolModule>> = { chat, responses, messages };

/**
 * The protocol whose error shape a caller most likely reads, before (or without) a known
 * endpoint: the one whose endpoint the path starts with, else the one whose marker header came,
 * else Chat Completions, the shape most clients read.
 */
export function likelyProtocol(path: string, hasHeader: (name: string) => boolean): Protocol {
  for (const p of PROTOCOLS) {
    if (protocols[p].endpoints.some((e) => path.startsWith(e.path.split('{')[0]!))) return p;
  }
  for (const p of PROTOCOLS) {
    const marker = protocols[p].marker;
    if (marker !== undefined && hasHeader(marker)) return p;
  }
  return 'chat';
}
