/**
 * What `--verbose` and `-vv` print under a request's line, as a developer watching Claude Code or
 * Codex reads it: a streamed answer put together (text, thinking on its first line, tool calls with
 * their arguments) in each protocol, the client's telemetry headers on one line, and with `-vv` the
 * raw events and every header. Everything that came from outside is escaped and cut.
 */
import { readFileSync } from 'node:fs';
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import type { Protocol } from '../protocols/types.js';
import { formatDetail } from './detail.js';
import { capture, newExchange } from './exchange.js';
import { newRecord, type RequestRecord } from './record.js';
import { foldTelemetry } from './telemetry-headers.js';

const plain = new Chalk({ level: 0 });

const frame = (data: unknown, event?: string) => `${event !== undefined ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

const THINKING = 'The user wants the weather in Paris.\nI should call the tool, then answer briefly.';

/** Streams as each API sends them: thinking, text over two lines, and a tool call whose arguments come in pieces. */
const STREAMS: Record<Protocol, string[]> = {
  messages: [
    frame({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, usage: { input_tokens: 12, output_tokens: 1 } } }, 'message_start'),
    frame({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }, 'content_block_start'),
    frame({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: THINKING.slice(0, 20) } }, 'content_block_delta'),
    frame({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: THINKING.slice(20) } }, 'content_block_delta'),
    frame({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } }, 'content_block_delta'),
    frame({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
    frame({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }, 'content_block_start'),
    frame({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Let me check.\nOne ' } }, 'content_block_delta'),
    frame({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'moment.' } }, 'content_block_delta'),
    frame({ type: 'content_block_stop', index: 1 }, 'content_block_stop'),
    frame({ type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} } }, 'content_block_start'),
    frame({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":' } }, 'content_block_delta'),
    frame({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } }, 'content_block_delta'),
    frame({ type: 'content_block_stop', index: 2 }, 'content_block_stop'),
    frame({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 40 } }, 'message_delta'),
    frame({ type: 'message_stop' }, 'message_stop'),
  ],
  responses: (() => {
    const response = (status: string, output: unknown[]) => ({ id: 'resp_1', object: 'response', created_at: 1, status, model: 'gpt-x', output, usage: status === 'completed' ? { input_tokens: 12, output_tokens: 40 } : null });
    const reasoning = { id: 'rs_1', type: 'reasoning', summary: [] };
    const message = { id: 'msg_1', type: 'message', role: 'assistant', status: 'in_progress', content: [] };
    const call = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '', status: 'in_progress' };
    const events: [string, Record<string, unknown>][] = [
      ['response.created', { response: response('in_progress', []) }],
      ['response.output_item.added', { output_index: 0, item: reasoning }],
      ['response.reasoning_summary_part.added', { item_id: 'rs_1', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } }],
      ['response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, summary_index: 0, delta: THINKING }],
      ['response.reasoning_summary_text.done', { item_id: 'rs_1', output_index: 0, summary_index: 0, text: THINKING }],
      ['response.reasoning_summary_part.done', { item_id: 'rs_1', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: THINKING } }],
      ['response.output_item.done', { output_index: 0, item: { ...reasoning, summary: [{ type: 'summary_text', text: THINKING }] } }],
      ['response.output_item.added', { output_index: 1, item: message }],
      ['response.content_part.added', { item_id: 'msg_1', output_index: 1, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }],
      ['response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'Let me check.\nOne ' }],
      ['response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'moment.' }],
      ['response.output_text.done', { item_id: 'msg_1', output_index: 1, content_index: 0, text: 'Let me check.\nOne moment.' }],
      ['response.content_part.done', { item_id: 'msg_1', output_index: 1, content_index: 0, part: { type: 'output_text', text: 'Let me check.\nOne moment.', annotations: [] } }],
      ['response.output_item.done', { output_index: 1, item: { ...message, status: 'completed' } }],
      ['response.output_item.added', { output_index: 2, item: call }],
      ['response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 2, delta: '{"city":' }],
      ['response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 2, delta: '"Paris"}' }],
      ['response.function_call_arguments.done', { item_id: 'fc_1', output_index: 2, arguments: '{"city":"Paris"}' }],
      ['response.output_item.done', { output_index: 2, item: { ...call, arguments: '{"city":"Paris"}', status: 'completed' } }],
      ['response.completed', { response: response('completed', []) }],
    ];
    return events.map(([type, rest], i) => frame({ type, sequence_number: i, ...rest }, type));
  })(),
  gemini: (() => {
    const chunk = (parts: unknown[], end?: Record<string, unknown>) => ({ candidates: [{ content: { role: 'model', parts }, index: 0, ...end }], modelVersion: 'gemini-x' });
    return [
      frame(chunk([{ text: THINKING.slice(0, 20), thought: true }])),
      frame(chunk([{ text: THINKING.slice(20), thought: true }])),
      frame(chunk([{ text: 'Let me check.\nOne ' }])),
      frame(chunk([{ text: 'moment.' }])),
      frame({ ...chunk([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }], { finishReason: 'STOP' }), usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 40 } }),
    ];
  })(),
  chat: (() => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-x',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    return [
      frame(chunk({ role: 'assistant', content: '' })),
      frame(chunk({ reasoning_content: THINKING.slice(0, 20) })),
      frame(chunk({ reasoning_content: THINKING.slice(20) })),
      frame(chunk({ content: 'Let me check.\nOne ' })),
      frame(chunk({ content: 'moment.' })),
      frame(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] })),
      frame(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] })),
      frame(chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] })),
      frame(chunk({}, 'tool_calls')),
      frame({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', choices: [], usage: { prompt_tokens: 12, completion_tokens: 40, total_tokens: 52 } }),
      frame('[DONE]'),
    ];
  })(),
};

const PATHS: Record<Protocol, string> = { messages: '/v1/messages', responses: '/v1/responses', chat: '/v1/chat/completions', gemini: '/v1beta/models/m:streamGenerateContent' };

/** A passthrough request whose streamed answer was captured, as the gateway records it. */
function streamed(protocol: Protocol, frames: readonly string[], headers: Record<string, string> = {}): RequestRecord {
  const record = newRecord('req_1', 0, 0, 'POST', PATHS[protocol]);
  const x = newExchange({ 'content-type': 'application/json', ...headers }, 1024 * 1024);
  capture(x, x.request, 0, Buffer.from(JSON.stringify({ model: 'm', stream: true })));
  x.responseStatus = 200;
  x.responseHeaders = { 'content-type': 'text/event-stream' };
  for (const [i, f] of frames.entries()) capture(x, x.response, i + 1, Buffer.from(f));
  return Object.assign(record, { protocol, upstreamProtocol: protocol, model: 'm', provider: 'p', status: 200, stream: true, exchange: x });
}

/** The lines of the streamed answer's block (its title and what follows, up to the next block or the end). */
function answerBlock(detail: string): string[] {
  const lines = detail.trimEnd().split('\n');
  return lines.slice(lines.findIndex((l) => l.startsWith('  ← response body')));
}

describe('--verbose puts a streamed answer together', () => {
  it.each([
    [
      'messages',
      [
        '  ← response body: streamed, 16 events, stop: tool_calls',
        `    thinking  The user wants the weather in Paris. … (+${THINKING.length - 36} chars)`,
        '    text      Let me check.',
        '              One moment.',
        '    tool call get_weather {"city":"Paris"}',
      ],
    ],
    [
      'responses',
      [
        '  ← response body: streamed, 20 events, stop: tool_calls',
        `    thinking  The user wants the weather in Paris. … (+${THINKING.length - 36} chars)`,
        '    text      Let me check.',
        '              One moment.',
        '    tool call get_weather {"city":"Paris"}',
      ],
    ],
    [
      'chat',
      [
        '  ← response body: streamed, 11 events, stop: tool_calls',
        `    thinking  The user wants the weather in Paris. … (+${THINKING.length - 36} chars)`,
        '    text      Let me check.',
        '              One moment.',
        '    tool call get_weather {"city":"Paris"}',
      ],
    ],
    [
      'gemini',
      [
        '  ← response body: streamed, 5 events, stop: tool_calls',
        `    thinking  The user wants the weather in Paris. … (+${THINKING.length - 36} chars)`,
        '    text      Let me check.',
        '              One moment.',
        '    tool call get_weather {"city":"Paris"}',
      ],
    ],
  ] as const)('a %s stream: thinking on its first line, the text, the tool call and its arguments', (protocol, expected) => {
    const detail = formatDetail(streamed(protocol, STREAMS[protocol]), plain, 1);
    expect(answerBlock(detail)).toEqual(expected);
    expect(detail).not.toContain('content_block_delta');
    expect(detail).not.toContain('ms ');
  });

  it.each(['messages', 'responses', 'chat', 'gemini'] as const)('-vv prints the %s stream as raw events with their times', (protocol) => {
    const detail = formatDetail(streamed(protocol, STREAMS[protocol]), plain, 2);
    const block = answerBlock(detail);
    expect(block[0]).toBe('  ← response body');
    expect(block).toHaveLength(STREAMS[protocol].length + 1);
    expect(block[1]).toMatch(/^ {4}1ms /);
    expect(detail).not.toContain('tool call');
  });

  it('a translated request: the upstream stream is put together in its own protocol, the response in the caller’s', () => {
    const record = streamed('chat', STREAMS.chat);
    const x = record.exchange!;
    const attempt = {
      model: 'm',
      provider: 'p',
      upstreamModel: 'claude-x',
      protocol: 'messages' as const,
      t: 0,
      headers: {},
      body: { chunks: [{ t: 0, data: Buffer.from('{"model":"claude-x"}') }], truncated: false },
      status: 200,
      responseHeaders: { 'content-type': 'text/event-stream' },
      response: { chunks: STREAMS.messages.map((f, i) => ({ t: i, data: Buffer.from(f) })), truncated: false },
    };
    x.attempts.push(attempt);
    record.upstreamProtocol = 'messages';
    const detail = formatDetail(record, plain, 1);
    expect(detail).toContain('  ⇠ upstream response: streamed, 16 events, stop: tool_calls\n    thinking  The user wants');
    expect(detail).toContain('  ← response body: streamed, 11 events, stop: tool_calls\n');
  });

  const HOSTILE = '\x1b[2J\x1b]0;pwned\x07\u009b2J\r\u202eevil';
  it.each([
    ['text', { content: `hi${HOSTILE}\nnext` }, ['    text      hi\\x1b[2J\\x1b]0;pwned\\x07\\x9b2J\\r\\u202eevil', '              next']],
    ['thinking', { reasoning_content: `${HOSTILE}\nsecond line` }, [`    thinking  \\x1b[2J\\x1b]0;pwned\\x07\\x9b2J\\r\\u202eevil … (+12 chars)`]],
    [
      'a tool call',
      { tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: `run${HOSTILE}`, arguments: `{"cmd":"a\\nb"}\n${HOSTILE}` } }] },
      ['    tool call run\\x1b[2J\\x1b]0;pwned\\x07\\x9b2J\\r\\u202eevil {"cmd":"a\\\\nb"}\\n\\x1b[2J\\x1b]0;pwned\\x07\\x9b2J\\r\\u202eevil'],
    ],
  ])('escapes hostile %s', (_what, delta, expected) => {
    const frames = [frame({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'x', choices: [{ index: 0, delta, finish_reason: null }] }), frame('[DONE]')];
    expect(answerBlock(formatDetail(streamed('chat', frames), plain, 1)).slice(1)).toEqual(expected);
  });

  it('cuts long texts, long arguments and long answers, saying how much was left out', () => {
    const long = 'x'.repeat(5000);
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const chunk = (delta: unknown) => frame({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'x', choices: [{ index: 0, delta, finish_reason: null }] });
    const block = (delta: unknown) => answerBlock(formatDetail(streamed('chat', [chunk(delta), frame('[DONE]')]), plain, 1)).slice(1);
    expect(block({ content: long })).toEqual([`    text      ${'x'.repeat(2000)} … (+3000 chars)`]);
    const many = block({ content: lines });
    expect(many).toHaveLength(30);
    expect(many[29]).toBe(`              line 29 … (+${lines.length - lines.split('\n').slice(0, 30).join('\n').length} chars)`);
    const args = block({ tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: long } }] });
    expect(args).toEqual([`    tool call f ${'x'.repeat(400)} … (+4600 chars)`]);
    const calls = Array.from({ length: 60 }, (_, i) => ({ index: i, id: `c${i}`, type: 'function', function: { name: `f${i}`, arguments: '{}' } }));
    const listed = block({ tool_calls: calls });
    expect(listed).toHaveLength(51);
    expect(listed[50]).toBe('    … 10 more parts');
  });

  it('says what it could not read: a stream cut at the capture limit', () => {
    const record = streamed('messages', STREAMS.messages.slice(0, 9));
    record.exchange!.response.truncated = true;
    expect(answerBlock(formatDetail(record, plain, 1)).at(-1)).toBe('    ✗ the stream was cut at the capture limit');
  });
});

/** The headers of a real client's request (test/fixtures/clients), as node:http hands them over: names in lower case. */
function fixtureHeaders(name: string): Record<string, string> {
  const { headers } = JSON.parse(readFileSync(new URL(`../../test/fixtures/clients/${name}.json`, import.meta.url), 'utf8')) as { headers: Record<string, string> };
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
const CLAUDE_CODE = fixtureHeaders('claude-code-2.1.330-messages-first-turn');

describe('--verbose folds the client telemetry headers into one line', () => {
  it.each([
    [
      'Claude Code',
      CLAUDE_CODE,
      'claude-cli/2.1.330 (external, sdk-cli) · anthropic-dangerous-direct-browser-access true · x-app cli · sdk js 0.128.0 · node v26.12.1 · Linux x64 · retry 0 · timeout 600s · betas claude-code-20250219, interleaved-thinking-2025-05-14, context-management-2025-06-27 +5',
      ['accept', 'content-type', 'x-claude-code-session-id', 'anthropic-version', 'x-api-key', 'connection', 'host', 'accept-encoding', 'content-length'],
    ],
    [
      'Codex',
      fixtureHeaders('codex-0.169.0-responses-first-turn'),
      'codex_exec/0.169.0 (Debian 12.0.0; x86_64) xterm (codex_exe… · originator codex_exec · window-id 01900000-0000-7000-8000-000000000003:0 · turn-metadata {…741 chars} · betas remote_compaction_v2',
      ['x-client-request-id', 'session-id', 'thread-id', 'accept', 'content-type', 'authorization', 'host', 'content-length'],
    ],
    [
      'the OpenAI SDK',
      fixtureHeaders('openai-7.57.0-chat-completions-create'),
      'OpenAI/JS 7.57.0 · sdk js 7.57.0 · node v24.21.0 · Linux x64 · retry 0',
      ['host', 'connection', 'accept', 'authorization', 'content-type', 'accept-language', 'sec-fetch-mode', 'accept-encoding', 'content-length'],
    ],
    [
      'the Anthropic SDK',
      fixtureHeaders('anthropic-sdk-1.12.0-messages-create'),
      'Anthropic/JS 1.12.0 · sdk js 1.12.0 · node v20.20.2 · Linux x64 · retry 0 · timeout 600s',
      ['host', 'connection', 'accept', 'anthropic-version', 'authorization', 'content-type', 'accept-language', 'sec-fetch-mode', 'accept-encoding', 'content-length'],
    ],
    [
      'the OpenAI Python SDK',
      { 'user-agent': 'OpenAI/Python 1.99.0', 'x-stainless-lang': 'python', 'x-stainless-package-version': '1.99.0', 'x-stainless-runtime': 'CPython', 'x-stainless-runtime-version': '3.12.1', 'x-stainless-async': 'false', 'x-stainless-read-timeout': '600', host: 'h' },
      'OpenAI/Python 1.99.0 · sdk python 1.99.0 · CPython 3.12.1 · async false · read-timeout 600',
      ['host'],
    ],
    ['the Gemini SDK', { 'x-goog-api-client': 'google-genai-sdk/1.20.0 gl-node/v22.3.0', host: 'h' }, 'google-genai-sdk/1.20.0 gl-node/v22.3.0', ['host']],
    ['curl: a user agent alone', { host: 'h', 'user-agent': 'curl/8.5.0' }, 'curl/8.5.0', ['host']],
    ['no telemetry', { host: 'h' }, undefined, ['host']],
    [
      'many unknown Stainless headers: four shown, the rest counted',
      Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`x-stainless-k${i}`, `v${i}`])),
      'k0 v0 · k1 v1 · k2 v2 · k3 v3 · +3 more',
      [],
    ],
    [
      'hostile values: escaped and cut',
      { 'user-agent': `agent\x1b[2J\u009b${'a'.repeat(100)}`, 'anthropic-beta': '\u202ebeta,,  ,b2', 'x-codex-\u202ex': '\x07{' },
      `agent\\x1b[2J\\x9b${'a'.repeat(49)}… · \\u202ex \\x07{ · betas \\u202ebeta, b2`,
      [],
    ],
  ])('%s', (_client, headers, telemetry, rest) => {
    const folded = foldTelemetry(headers);
    expect(folded.telemetry).toBe(telemetry);
    expect(folded.rest.map(([name]) => name)).toEqual(rest);
  });

  it('prints the other headers one per line and the telemetry last; -vv prints every header as it came', () => {
    const record = streamed('messages', STREAMS.messages, { ...CLAUDE_CODE, 'x-api-key': 'sk-ant-secret' });
    const headersBlock = (detail: string) => {
      const lines = detail.split('\n');
      const start = lines.indexOf('  → request headers');
      return lines.slice(start + 1, lines.indexOf('  → request body'));
    };
    const folded = headersBlock(formatDetail(record, plain, 1));
    expect(folded).toEqual([
      '    content-type: application/json',
      '    accept: application/json',
      '    x-claude-code-session-id: 00000000-0000-4000-8000-000000000001',
      '    anthropic-version: 2023-06-01',
      '    x-api-key: [redacted]',
      '    connection: keep-alive',
      '    host: 127.0.0.1:8080',
      '    accept-encoding: gzip, deflate, br, zstd',
      '    content-length: 9746',
      expect.stringMatching(/^ {4}telemetry: claude-cli\/2\.1\.330 \(external, sdk-cli\) · .* · betas claude-code-20250219, .* \+5$/),
    ]);
    const raw = headersBlock(formatDetail(record, plain, 2));
    // Every header, one a line, between the braces of the JSON object.
    expect(raw).toHaveLength(Object.keys({ 'content-type': '', ...CLAUDE_CODE }).length + 2);
    expect(raw).toContain('      "x-stainless-os": "Linux",');
    for (const detail of [formatDetail(record, plain, 1), formatDetail(record, plain, 2)]) expect(detail).not.toContain('sk-ant-secret');
  });
});
