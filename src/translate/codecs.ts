/**
 * Each protocol's codec, keyed by protocol, from the protocol modules: translation derives every
 * caller → upstream pair from this table (registry.ts) and replay reads recorded answers with it.
 */
import { protocols } from '../protocols/registry.js';
import { PROTOCOLS, type Protocol } from '../protocols/types.js';
import type { Codec } from './types.js';

export const codecs = Object.fromEntries(PROTOCOLS.map((p) => [p, protocols[p].codec])) as Readonly<Record<Protocol, Codec>>;
