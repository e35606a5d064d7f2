/**
 * The probe's requests and answer reading, for every protocol in the registry: the bodies are
 * requests the protocol's own checks accept and decode back to what the probe asks; answers the
 * protocol's codec writes are read back as the probe needs.
 */
import { describe, expect, it } from 'vitest';
import type { ProviderType } from '../config/types.js';
import { DEFAULT_SERVER_LIMITS } from '../config/schema.js';
import { protocols } from '../protocols/registry.js';
import { PROTOCOLS, type Protocol } from '../protocols/types.js';
import { createSseDecoder } from '../sse/parse.js';
import { answerContext } from '../translate/context.js';
import type * as Ir from '../translate/ir.js';
import { callsTool, cutShort, PROBE_TOOL, REPLY_MAX_TOKENS, replyBody, streamError, TOOL_MAX_TOKENS, toolBody } from './probe-requests.js';

const TYPES: readonly ProviderType[] = ['openai', 'openai-compatible', 'anthropic'];
const cases = PROTOCOLS.flatMap((protocol) => TYPES.map((type) => [protocol, type] as const));

const clock = { now: () => 1_700_000_000_000, newId: (prefix: string) => `${prefix}test` };
const ctx = (protocol: Protocol) => answerContext(protocol, 'm', clock);

// A protocol that puts the model and the stream in the path (Gemini) reads them from there; the others from the body.
const inspect = (protocol: Protocol, body: unknown, stream = false) =>
  protocols[protocol].inspect({ operation: 'create', body, params: { model: 'm' }, stream, url: stream ? '/?alt=sse' : '/' }, DEFAULT_SERVER_LIMITS);

describe('probe requests', () => {
  it.each(cases)('%s to a %s provider: a capped reply, the same streamed, a forced tool', (protocol, type) => {
    const codec = protocols[protocol].codec;

    const reply = replyBody(protocol, type, 'm', false);
    expect(inspect(protocol, reply)).toEqual({ model: 'm', stream: false, features: [] });
    const replyIr = codec.decodeRequest(reply, ctx(protocol));
    expect(replyIr).toMatchObject({ maxOutputTokens: REPLY_MAX_TOKENS, stream: false, tools: [] });
    expect(replyIr.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: expect.any(String) }] }]);

    const streamed = replyBody(protocol, type, 'm', true);
    expect(inspect(protocol, streamed, true)).toMatchObject({ model: 'm', stream: true, features: ['streaming'] });
    expect(codec.decodeRequest(streamed, { ...ctx(protocol), stream: true })).toMatchObject({ maxOutputTokens: REPLY_MAX_TOKENS, stream: true });

    const tool = toolBody(protocol, type, 'm');
    expect(inspect(protocol, tool)).toMatchObject({ model: 'm', stream: false, features: ['tools'] });
    const toolIr = codec.decodeRequest(tool, ctx(protocol));
    expect(toolIr).toMatchObject({ maxOutputTokens: TOOL_MAX_TOKENS, toolChoice: { type: 'tool', name: PROBE_TOOL.name } });
    expect(toolIr.tools).toEqual([expect.objectContaining({ name: PROBE_TOOL.name, parameters: PROBE_TOOL.parameters })]);
  });

  // The dialect comes from the provider kind: OpenAI refuses `max_tokens` for its newer models, compatible servers know only it.
  it.each([
    ['openai', { max_completion_tokens: REPLY_MAX_TOKENS }, 'max_tokens'],
    ['openai-compatible', { max_tokens: REPLY_MAX_TOKENS }, 'max_completion_tokens'],
  ] as const)('a Chat reply to a %s provider caps output with its field', (type, field, absent) => {
    const body = replyBody('chat', type, 'm', false);
    expect(body).toMatchObject(field);
    expect(body).not.toHaveProperty(absent);
  });
});

const answer = (content: Ir.AssistantPart[], stopReason: Ir.StopReason): Ir.Response => ({
  id: 'r',
  model: 'm',
  created: 1,
  content,
  stopReason,
  usage: { inputTokens: 5, outputTokens: 5 },
});

const call: Ir.ToolCallPart = { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function' };
const text: Ir.TextPart = { type: 'text', text: 'I would call it' };

describe('reading whole answers', () => {
  const answers = [
    ['a tool call', answer([call], 'tool_calls'), { callsTool: true, cutShort: false }],
    ['text cut at the cap', answer([text], 'max_tokens'), { callsTool: false, cutShort: true }],
    ['text that ended', answer([text], 'end'), { callsTool: false, cutShort: false }],
  ] as const;

  it.each(PROTOCOLS.flatMap((p) => answers.map(([name, ir, expected]) => [p, name, ir, expected] as const)))(
    '%s: %s',
    (protocol, _name, ir, expected) => {
      const json = protocols[protocol].codec.encodeResponse(ir, ctx(protocol), toolBody(protocol, 'openai', 'm'));
      expect({ callsTool: callsTool(protocol, json), cutShort: cutShort(protocol, json) }).toEqual(expected);
    },
  );

  it.each(PROTOCOLS.flatMap((p) => [null, 'ok', [], 42].map((json) => [p, json] as const)))('%s: %j is no answer', (protocol, json) => {
    expect(callsTool(protocol, json)).toBe(false);
    expect(cutShort(protocol, json)).toBe(false);
  });
});

/** The SSE events a protocol's codec writes for `events`. */
function streamOf(protocol: Protocol, events: readonly Ir.StreamEvent[]) {
  const encoder = protocols[protocol].codec.encodeStream(ctx(protocol), replyBody(protocol, 'openai', 'm', true));
  const wire = events.map((e) => encoder.push(e)).join('') + encoder.end();
  const decoder = createSseDecoder();
  return [...decoder.push(Buffer.from(wire)), ...decoder.end()];
}

describe('reading streamed answers', () => {
  const begun: Ir.StreamEvent[] = [
    { type: 'start', id: 'r', model: 'm', created: 1 },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'block_delta', index: 0, delta: { type: 'text', text: 'ok' } },
  ];

  it.each(PROTOCOLS)('%s: the message of an in-band error', (protocol) => {
    const events = streamOf(protocol, [...begun, { type: 'error', message: 'overloaded, try later', errorType: 'overloaded_error' }]);
    expect(streamError(protocol, events)).toBe('overloaded, try later');
  });

  it.each(PROTOCOLS)('%s: none in a stream that ends properly', (protocol) => {
    const events = streamOf(protocol, [
      ...begun,
      { type: 'block_stop', index: 0 },
      { type: 'finish', stopReason: 'end', usage: { inputTokens: 5, outputTokens: 1 } },
    ]);
    expect(events.length).toBeGreaterThan(0);
    expect(streamError(protocol, events)).toBeUndefined();
  });
});
