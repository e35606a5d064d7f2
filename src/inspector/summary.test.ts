import { describe, expect, it } from 'vitest';
import { PREVIEW_CHARS } from './common/preview.js';
import { exchangeJson } from '../log/exchange-json.js';
import { capture, emptyBody, newExchange } from '../log/exchange.js';
import type { RequestRecord } from '../log/record.js';
import { firstTokenMs, promptCacheKey, summaryOfJson, summaryOfRecord } from './summary.js';

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

function codexStream(): RequestRecord {
  const exchange = newExchange({ 'user-agent': 'codex_exec/0.169.0 (Debian 12.0.0; x86_64)', originator: 'codex_exec', authorization: 'Bearer secret-key' }, 1 << 20);
  capture(exchange, exchange.request, 1, Buffer.from(JSON.stringify({ model: 'gpt-test', input: 'x'.repeat(5000), prompt_cache_key: 'sess-42', stream: true })));
  const attempt = {
    model: 'gpt-test',
    provider: 'anthropic',
    upstreamModel: 'claude-upstream',
    protocol: 'messages' as const,
    t: 2,
    headers: {},
    body: emptyBody(),
    response: emptyBody(),
  };
  exchange.attempts.push(attempt);
  exchange.responseHeaders = { 'content-type': 'text/event-stream' };
  capture(exchange, exchange.response, 10, sse('response.created', { type: 'response.created', response: { status: 'in_progress', output: [] } }));
  capture(exchange, exchange.response, 25, sse('response.output_text.delta', { type: 'response.output_text.delta', delta: 'Hi' }));
  capture(exchange, exchange.response, 30, sse('response.completed', { type: 'response.completed' }));
  return {
    id: 'req_1',
    startedAt: Date.UTC(2026, 0, 1),
    start: 0,
    method: 'POST',
    path: '/v1/responses',
    protocol: 'responses',
    upstreamProtocol: 'messages',
    keyGroup: 'dev',
    keyId: '0123abcd',
    model: 'gpt-test',
    provider: 'anthropic',
    upstreamModel: 'claude-upstream',
    stream: true,
    status: 200,
    durationMs: 31.234,
    ttfbMs: 9.87,
    usage: { inputTokens: 100, outputTokens: 2, cachedTokens: 80, cacheWriteTokens: 10 },
    warnings: ['dropped tool web_search', 'dropped tool web_search'],
    exchange,
  };
}

describe('summaryOfRecord', () => {
  it('builds the row: client, session from the body, time to first token, translation, tokens', () => {
    expect(summaryOfRecord(codexStream(), false)).toEqual({
      id: 'req_1',
      time: Date.UTC(2026, 0, 1),
      method: 'POST',
      path: '/v1/responses',
      client: { kind: 'codex', label: 'Codex 0.169.0 (exec)', version: '0.169.0' },
      sessionId: 'sess-42',
      keyGroup: 'dev',
      keyName: '0123abcd',
      model: 'gpt-test',
      provider: 'anthropic',
      upstreamModel: 'claude-upstream',
      protocol: 'responses',
      upstreamProtocol: 'messages',
      translated: true,
      stream: true,
      status: 200,
      durationMs: 31.2,
      ttfbMs: 9.9,
      ttftMs: 25,
      usage: { inputTokens: 100, outputTokens: 2, cachedTokens: 80, cacheWriteTokens: 10 },
      warnings: 1,
      attempts: 1,
      preview: `${'x'.repeat(PREVIEW_CHARS)}…`,
    });
  });

  it('says when a body was cut at capture, and matches what a recording of the same exchange says', () => {
    const r = codexStream();
    r.exchange!.attempts[0]!.response.truncated = true;
    const live = summaryOfRecord(r, false);
    expect(live.truncated).toBe(true);
    expect(summaryOfJson(JSON.parse(JSON.stringify(exchangeJson(r))))).toEqual(live);
  });

  it("takes the session and agent from the record, captured or not, and a recording says the same", () => {
    const r = { ...codexStream(), sessionId: 'cc-sess', agentId: 'explore-1', parentAgentId: 'main' };
    const live = summaryOfRecord(r, false);
    // The record's session header wins over the body's prompt_cache_key.
    expect(live).toMatchObject({ sessionId: 'cc-sess', agentId: 'explore-1', parentAgentId: 'main' });
    expect(summaryOfJson(JSON.parse(JSON.stringify(exchangeJson(r))))).toEqual(live);
    const uncaptured = summaryOfRecord({ ...r, exchange: undefined }, false);
    expect(uncaptured).toMatchObject({ sessionId: 'cc-sess', agentId: 'explore-1', parentAgentId: 'main' });
  });

  it('marks a running exchange pending and skips what is not known yet', () => {
    const r = codexStream();
    const s = summaryOfRecord({ ...r, status: undefined, usage: undefined } as unknown as RequestRecord, true);
    expect(s.pending).toBe(true);
    expect(s.ttftMs).toBeUndefined();
    expect(s.status).toBeUndefined();
  });
});

describe('firstTokenMs', () => {
  const body = (...parts: [number, Buffer | string][]) => ({ chunks: parts.map(([t, data]) => ({ t, data })), truncated: false });

  it('finds the first content, tool or reasoning delta in each protocol', () => {
    expect(
      firstTokenMs(
        body(
          [5, sse('message_start', { type: 'message_start', message: { content: [] } })],
          [9, sse('content_block_start', { type: 'content_block_start' })],
          [12, sse('content_block_delta', { type: 'content_block_delta', delta: { type: 'text_delta', text: 'a' } })],
        ),
      ),
    ).toBe(12);
    const chunk = (delta: unknown) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
    expect(firstTokenMs(body([3, chunk({ role: 'assistant', content: '' })], [7, chunk({ content: 'Hel' })]))).toBe(7);
    expect(firstTokenMs(body([3, chunk({ role: 'assistant', content: null })], [8, chunk({ tool_calls: [{ index: 0, id: 'c' }] })]))).toBe(8);
    expect(firstTokenMs(body([4, chunk({ reasoning_content: 'hmm' })]))).toBe(4);
    expect(firstTokenMs(body([4, Buffer.from(sse('response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', delta: '{' }))]))).toBe(4);
    expect(firstTokenMs(body([1, sse('ping', { type: 'ping' })]))).toBeUndefined();
  });
});

describe('promptCacheKey', () => {
  it('finds the key anywhere in the bytes, in any chunk', () => {
    const c = (data: string) => ({ chunks: [{ t: 0, data: Buffer.from('{"input":"..."}') }, { t: 0, data }], truncated: false });
    expect(promptCacheKey(c('{"prompt_cache_key" : "abc-1"}'))).toBe('abc-1');
    expect(promptCacheKey(c('{"prompt_cache_key":null}'))).toBeUndefined();
    expect(promptCacheKey(c('{}'))).toBeUndefined();
  });
});
