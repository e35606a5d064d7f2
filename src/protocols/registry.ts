/**
 * The protocols the gateway speaks, each a module (`<id>/protocol.ts`). A new protocol is its
 * folder plus one line here; `Protocol` (types.ts) names the keys.
 */
import { chat } from './chat/protocol.js';
import { gemini } from './gemini/protocol.js';
import { messages } from './messages/protocol.js';
import { matchTemplate, parseTemplate } from './path-template.js';
import type { ProtocolModule } from './protocol.js';
import { responses } from './responses/protocol.js';
import { PROTOCOLS, type Protocol } from './types.js';

export const protocols: Readonly<Record<Protocol, ProtocolModule>> = { chat, responses, messages, gemini };

/**
 * What a path says of its caller: a templated endpoint it matches, a literal one it starts with,
 * or a path only this protocol's callers use (`pathPrefixes`). A templated endpoint's prefix alone
 * says nothing: Gemini's `/v1/models/` is OpenAI's too.
 */
const pathSigns = PROTOCOLS.map((p) => {
  const module = protocols[p];
  const literal = module.endpoints.filter((e) => !e.path.includes('{')).map((e) => e.path);
  const templates = module.endpoints.filter((e) => e.path.includes('{')).map((e) => parseTemplate(e.path));
  const prefixes = [...literal, ...(module.pathPrefixes ?? [])];
  return { p, says: (path: string) => prefixes.some((x) => path.startsWith(x)) || templates.some((t) => matchTemplate(t, path) !== undefined) };
});

/**
 * The protocol whose error shape a caller most likely reads, before (or without) a known
 * endpoint: the one whose endpoint the path is or starts with, else the one whose marker header
 * or query parameter came, else Chat Completions, the shape most clients read.
 */
export function likelyProtocol(path: string, hasHeader: (name: string) => boolean, hasQuery?: (name: string) => boolean): Protocol {
  for (const { p, says } of pathSigns) if (says(path)) return p;
  for (const p of PROTOCOLS) {
    const { marker, queryMarker } = protocols[p];
    if (marker !== undefined && hasHeader(marker)) return p;
    if (queryMarker !== undefined && hasQuery?.(queryMarker)) return p;
  }
  return 'chat';
}
