/**
 * Sessions: the exchanges one client conversation made, found by the id the client
 * sends (Claude Code's `x-claude-code-session-id`, Codex's `session-id` header and its
 * `prompt_cache_key`), with the prompt-cache figures that show whether caching works:
 * a prompt change that breaks the cached prefix shows as a request that reads much
 * less from the cache than the one before it had cached. Claude Code's subagents send
 * their session's id and their own agent id: they are grouped under the session, and
 * each agent's cache is followed on its own (a subagent's prompt shares no prefix with
 * the main agent's, so comparing across them would show breaks that are not there).
 */
import { header, type HeaderBag } from './client.js';
import type { ExchangeSummary } from './types.js';

const SESSION_HEADERS = ['x-claude-code-session-id', 'session-id', 'session_id'] as const;

export function sessionFromHeaders(headers: HeaderBag): string | undefined {
  for (const name of SESSION_HEADERS) {
    const v = header(headers, name);
    if (v) return v;
  }
  return undefined;
}

export function sessionFromBody(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const key = (body as Record<string, unknown>).prompt_cache_key;
  return typeof key === 'string' && key !== '' ? key : undefined;
}

/** One request of a session, as the cache strip draws it. */
export interface SessionPoint {
  readonly id: string;
  /** The subagent that sent it; undefined: the main agent. */
  readonly agentId?: string;
  readonly time: number;
  readonly status?: number;
  readonly inputTokens: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  /** Input neither read from nor written to the cache. */
  readonly uncached: number;
  /** This request read much less from the cache than the previous one had cached: the prefix changed (or expired). */
  readonly cacheBreak: boolean;
}

/** A subagent of a session, and the agent that started it (undefined: the main agent). */
export interface SessionAgent {
  readonly id: string;
  readonly parentAgentId?: string;
  readonly requests: number;
}

export interface SessionStats {
  readonly id: string;
  readonly client?: string;
  readonly requests: number;
  readonly first: number;
  readonly last: number;
  readonly models: readonly string[];
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** The requests' durations added up. */
  readonly durationMs: number;
  /** What the priced requests cost, in US dollars; undefined when none was priced. */
  readonly costUsd?: number;
  /** Requests whose model has no known price. */
  readonly unpriced: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly uncached: number;
  /** Cache reads as a share of all input tokens; undefined without usage. */
  readonly hitRate?: number;
  readonly cacheBreaks: number;
  /** Subagents, in the order they first sent a request. */
  readonly agents: readonly SessionAgent[];
  /** Oldest first. */
  readonly points: readonly SessionPoint[];
}

/** Below this share of what the previous request cached, a read counts as a break. */
const BREAK_RATIO = 0.5;

/** Sessions of the given exchanges, most recently active first. Exchanges without a session id are left out. */
export function groupSessions(summaries: readonly ExchangeSummary[]): SessionStats[] {
  const bySession = new Map<string, ExchangeSummary[]>();
  for (const s of summaries) {
    if (!s.sessionId) continue;
    let list = bySession.get(s.sessionId);
    if (!list) {
      list = [];
      bySession.set(s.sessionId, list);
    }
    list.push(s);
  }
  const out: SessionStats[] = [];
  for (const [id, list] of bySession) out.push(sessionStats(id, list));
  return out.sort((a, b) => b.last - a.last);
}

export function sessionStats(id: string, exchanges: readonly ExchangeSummary[]): SessionStats {
  const sorted = [...exchanges].sort((a, b) => a.time - b.time);
  const points: SessionPoint[] = [];
  const models = new Set<string>();
  let outputTokens = 0;
  let durationMs = 0;
  let costUsd: number | undefined;
  let unpriced = 0;
  /** What each agent's previous request cached, by agent id ('' for the main agent). */
  const previousCached = new Map<string, number>();
  const agents = new Map<string, { id: string; parentAgentId?: string; requests: number }>();
  for (const s of sorted) {
    if (s.model) models.add(s.model);
    durationMs += s.durationMs ?? 0;
    if (s.costUsd === null) unpriced++;
    else if (s.costUsd !== undefined) costUsd = (costUsd ?? 0) + s.costUsd;
    if (s.agentId !== undefined) {
      const agent = agents.get(s.agentId) ?? { id: s.agentId, ...(s.parentAgentId !== undefined ? { parentAgentId: s.parentAgentId } : {}), requests: 0 };
      agent.requests++;
      agents.set(s.agentId, agent);
    }
    const u = s.usage;
    // Exchanges that carry no usage (errors, count_tokens) count as requests but draw no bar.
    if (!u || u.inputTokens === undefined) continue;
    outputTokens += u.outputTokens ?? 0;
    const inputTokens = u.inputTokens;
    const cacheRead = u.cachedTokens ?? 0;
    const cacheWrite = u.cacheWriteTokens ?? 0;
    const agentKey = s.agentId ?? '';
    const before = previousCached.get(agentKey);
    const cacheBreak = before !== undefined && before > 0 && cacheRead < before * BREAK_RATIO;
    points.push({
      id: s.id,
      ...(s.agentId !== undefined ? { agentId: s.agentId } : {}),
      time: s.time,
      ...(s.status !== undefined ? { status: s.status } : {}),
      inputTokens,
      cacheRead,
      cacheWrite,
      uncached: Math.max(0, inputTokens - cacheRead - cacheWrite),
      cacheBreak,
    });
    previousCached.set(agentKey, cacheRead + cacheWrite);
  }
  const sum = (f: (p: SessionPoint) => number) => points.reduce((n, p) => n + f(p), 0);
  const inputTokens = sum((p) => p.inputTokens);
  const cacheRead = sum((p) => p.cacheRead);
  const client = sorted.find((s) => s.client)?.client?.label;
  return {
    id,
    ...(client ? { client } : {}),
    requests: sorted.length,
    first: sorted[0]?.time ?? 0,
    last: sorted[sorted.length - 1]?.time ?? 0,
    models: [...models],
    inputTokens,
    outputTokens,
    durationMs,
    ...(costUsd !== undefined ? { costUsd } : {}),
    unpriced,
    cacheRead,
    cacheWrite: sum((p) => p.cacheWrite),
    uncached: sum((p) => p.uncached),
    ...(inputTokens > 0 ? { hitRate: cacheRead / inputTokens } : {}),
    cacheBreaks: points.filter((p) => p.cacheBreak).length,
    agents: [...agents.values()],
    points,
  };
}
