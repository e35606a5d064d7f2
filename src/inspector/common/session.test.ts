import { describe, expect, it } from 'vitest';
import { groupSessions, sessionFromBody, sessionFromHeaders } from './session.js';
import type { ExchangeSummary } from './types.js';

let n = 0;
function summary(sessionId: string | undefined, usage?: ExchangeSummary['usage'], extra: Partial<ExchangeSummary> = {}): ExchangeSummary {
  n++;
  return {
    id: `req_${n}`,
    time: 1_000 + n,
    method: 'POST',
    path: '/v1/messages',
    translated: false,
    warnings: 0,
    attempts: 1,
    status: 200,
    model: 'claude-test',
    ...(sessionId ? { sessionId } : {}),
    ...(usage ? { usage } : {}),
    ...extra,
  };
}

describe('session ids', () => {
  it("reads Claude Code's and Codex's headers, and Codex's prompt_cache_key", () => {
    expect(sessionFromHeaders({ 'x-claude-code-session-id': 'cc-1' })).toBe('cc-1');
    expect(sessionFromHeaders({ 'session-id': 'cx-1', 'thread-id': 'cx-1' })).toBe('cx-1');
    expect(sessionFromHeaders({ session_id: 'cx-2' })).toBe('cx-2');
    expect(sessionFromHeaders({ 'user-agent': 'OpenAI/JS 7.57.0' })).toBeUndefined();
    expect(sessionFromBody({ model: 'x', prompt_cache_key: 'cx-3' })).toBe('cx-3');
    expect(sessionFromBody({ prompt_cache_key: '' })).toBeUndefined();
    expect(sessionFromBody('text')).toBeUndefined();
  });
});

describe('groupSessions', () => {
  it('totals tokens per session and computes the hit rate as cache reads over all input', () => {
    const list = [
      summary('a', { inputTokens: 1000, outputTokens: 10, cacheWriteTokens: 900 }, { client: { kind: 'claude-code', label: 'Claude Code 2.1.330' } }),
      summary('a', { inputTokens: 1100, outputTokens: 20, cachedTokens: 900, cacheWriteTokens: 150 }),
      summary('b', { inputTokens: 50, outputTokens: 5 }),
      summary(undefined, { inputTokens: 7, outputTokens: 1 }),
      summary('a', undefined, { status: 500, error: 'boom' }),
    ];
    const sessions = groupSessions(list);
    expect(sessions.map((s) => s.id)).toEqual(['a', 'b']);
    const a = sessions[0]!;
    expect(a).toMatchObject({
      client: 'Claude Code 2.1.330',
      requests: 3,
      inputTokens: 2100,
      outputTokens: 30,
      cacheRead: 900,
      cacheWrite: 1050,
      uncached: 150,
      cacheBreaks: 0,
    });
    expect(a.hitRate).toBeCloseTo(900 / 2100);
    // The failed request counts but draws no bar.
    expect(a.points.map((p) => [p.cacheRead, p.cacheWrite, p.uncached])).toEqual([
      [0, 900, 100],
      [900, 150, 50],
    ]);
    expect(sessions[1]).toMatchObject({ requests: 1, hitRate: 0, cacheRead: 0 });
  });

  it('marks the request that read much less than the previous one had cached', () => {
    const list = [
      summary('s', { inputTokens: 10_000, cacheWriteTokens: 9_000 }),
      summary('s', { inputTokens: 10_500, cachedTokens: 9_000, cacheWriteTokens: 1_000 }),
      // The system prompt changed: the prefix no longer matches.
      summary('s', { inputTokens: 11_000, cachedTokens: 0, cacheWriteTokens: 10_500 }),
      summary('s', { inputTokens: 11_500, cachedTokens: 10_500, cacheWriteTokens: 500 }),
    ];
    const [s] = groupSessions(list);
    expect(s!.points.map((p) => p.cacheBreak)).toEqual([false, false, true, false]);
    expect(s!.cacheBreaks).toBe(1);
  });

  it("groups a session's subagents under it, and follows each agent's cache on its own", () => {
    const list = [
      summary('s', { inputTokens: 10_000, cacheWriteTokens: 9_000 }),
      // A subagent's prompt shares nothing with the main agent's: its first read is no break.
      summary('s', { inputTokens: 3_000, cacheWriteTokens: 2_500 }, { agentId: 'explore-1', parentAgentId: 'main' }),
      summary('s', { inputTokens: 10_400, cachedTokens: 9_000, cacheWriteTokens: 1_000 }),
      summary('s', { inputTokens: 3_200, cachedTokens: 2_500, cacheWriteTokens: 500 }, { agentId: 'explore-1', parentAgentId: 'main' }),
      summary('s', { inputTokens: 2_000, cacheWriteTokens: 1_800 }, { agentId: 'plan-2' }),
      // The subagent's prefix changed: a break of its own.
      summary('s', { inputTokens: 3_300, cachedTokens: 0, cacheWriteTokens: 3_000 }, { agentId: 'explore-1', parentAgentId: 'main' }),
    ];
    const [s] = groupSessions(list);
    expect(s!.requests).toBe(6);
    expect(s!.points.map((p) => p.cacheBreak)).toEqual([false, false, false, false, false, true]);
    expect(s!.points.map((p) => p.agentId)).toEqual([undefined, 'explore-1', undefined, 'explore-1', 'plan-2', 'explore-1']);
    expect(s!.agents).toEqual([
      { id: 'explore-1', parentAgentId: 'main', requests: 3 },
      { id: 'plan-2', requests: 1 },
    ]);
  });

  it('orders sessions by their latest request, and has no hit rate without usage', () => {
    const old = summary('old', undefined, { time: 10 });
    const recent = summary('recent', undefined, { time: 20 });
    const sessions = groupSessions([old, recent]);
    expect(sessions.map((s) => s.id)).toEqual(['recent', 'old']);
    expect(sessions[0]!.hitRate).toBeUndefined();
  });
});
