/**
 * The Messages body as Vertex AI takes it for Anthropic's models: the model goes in the URL (a
 * count keeps it in the body as well, where Vertex's counter reads it), `anthropic_version` is
 * Vertex's own and travels in the body instead of the header, and betas travel in the body's
 * `anthropic_beta`. Vertex refuses a request naming a beta or a field it does not offer, so those
 * are left out and named in the dropped list.
 */
import { isObject } from '../../protocols/shallow.js';
import type { EnvelopeCall, Enveloped } from '../kind.js';

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/**
 * The betas Vertex accepts for Claude, and whether it also reads each from the `anthropic-beta`
 * header. Vertex reads some only from the header (context management) and refuses others there
 * (the 1M context window), so each goes where it is read; the body field carries them all.
 */
const ACCEPTED_BETAS: Readonly<Record<string, { readonly header: boolean }>> = {
  'interleaved-thinking-2025-05-14': { header: true },
  'context-management-2025-06-27': { header: true },
  'context-1m-2025-08-07': { header: false },
  'compact-2026-01-12': { header: true },
  'compact-2026-09-04': { header: true },
  'computer-use-2025-01-24': { header: true },
  'computer-use-2025-11-24': { header: true },
  'tool-search-tool-2025-10-19': { header: true },
  'web-search-2025-03-05': { header: true },
  'per-turn-control-2026-07-01': { header: true },
  'thinking-binding-controls-2026-08-01': { header: true },
  'thinking-display-updates-2026-08-18': { header: true },
  'dangerous-tool-use-2026-09-03': { header: true },
};

/** Betas Vertex offers under another name: Anthropic's tool search is Vertex's tool-search-tool beta. */
const VERTEX_NAMES: Readonly<Record<string, string>> = {
  'advanced-tool-use-2025-11-20': 'tool-search-tool-2025-10-19',
};

/** Top-level fields of features Vertex does not offer for Claude, which it refuses as unknown fields. */
const NOT_OFFERED = [
  // The MCP connector, Anthropic's API only.
  'mcp_servers',
  // The code execution and skills container.
  'container',
  // Fast mode.
  'speed',
] as const;

/** The request for Vertex; `call.json` is left as it is. */
export function claudeEnvelope(call: EnvelopeCall): Enveloped {
  const dropped: string[] = [];
  const json: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(call.json)) {
    if (field === 'model' && call.operation !== 'count_tokens') continue;
    if ((NOT_OFFERED as readonly string[]).includes(field)) {
      dropped.push(field);
      continue;
    }
    json[field] = value;
  }
  json.anthropic_version = VERTEX_ANTHROPIC_VERSION;
  if (withoutCacheScopes(json)) dropped.push('cache_control scope');

  const { accepted, refused } = sortBetas(call.headers['anthropic-beta'], json.anthropic_beta);
  for (const beta of refused) dropped.push(`anthropic-beta ${beta}`);
  if (accepted.length > 0) json.anthropic_beta = accepted;
  else delete json.anthropic_beta;

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers)) {
    if (name !== 'anthropic-version' && name !== 'anthropic-beta') headers[name] = value;
  }
  const inHeader = accepted.filter((beta) => ACCEPTED_BETAS[beta]?.header === true);
  if (inHeader.length > 0) headers['anthropic-beta'] = inHeader.join(',');
  return { json, headers, dropped };
}

/** The caller's betas (the header's and any already in the body), under Vertex's names, split by whether Vertex accepts them. */
function sortBetas(header: string | undefined, inBody: unknown): { accepted: string[]; refused: string[] } {
  const asked = [...(header ?? '').split(','), ...(Array.isArray(inBody) ? inBody.filter((b) => typeof b === 'string') : [])];
  const accepted = new Set<string>();
  const refused = new Set<string>();
  for (const raw of asked) {
    const beta = raw.trim();
    if (beta === '') continue;
    const named = VERTEX_NAMES[beta] ?? beta;
    if (Object.hasOwn(ACCEPTED_BETAS, named)) accepted.add(named);
    else refused.add(beta);
  }
  return { accepted: [...accepted], refused: [...refused] };
}

/**
 * Takes `scope` out of every `cache_control` (Anthropic's prompt-caching-scope beta, which Vertex
 * does not offer) in the system prompt, the tools and the messages' blocks, copying what it
 * changes. Whether it took any out.
 */
function withoutCacheScopes(json: Record<string, unknown>): boolean {
  let changed = false;
  const block = (value: unknown): unknown => {
    if (!isObject(value)) return value;
    let out = value;
    if (isObject(value.cache_control) && 'scope' in value.cache_control) {
      const { scope: _scope, ...kept } = value.cache_control;
      out = { ...out, cache_control: kept };
      changed = true;
    }
    // A tool result's own content blocks may carry cache_control too.
    if (Array.isArray(value.content)) {
      const content = blocks(value.content);
      if (content !== value.content) out = { ...out, content };
    }
    return out;
  };
  const blocks = (list: readonly unknown[]): readonly unknown[] => {
    const mapped = list.map(block);
    return mapped.some((b, i) => b !== list[i]) ? mapped : list;
  };
  for (const field of ['system', 'tools', 'messages'] as const) {
    const value = json[field];
    if (Array.isArray(value)) {
      const mapped = blocks(value);
      if (mapped !== value) json[field] = mapped;
    }
  }
  return changed;
}
