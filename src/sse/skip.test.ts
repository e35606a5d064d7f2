/**
 * Skipping chunks must change nothing a watcher reports: usage, the proper end, and the
 * error frames (Responses numbers them by the events seen). Checked against the plain
 * decoder on random streams of each protocol, chunked at random and at event boundaries.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors.js';
import { protocols } from '../protocols/registry.js';
import type { Protocol } from '../protocols/types.js';
import { createSseDecoder } from './parse.js';
import { skippingDecoder } from './skip.js';

const ev = (event: string | undefined, data: unknown) =>
  `${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

const EVENTS: Record<Protocol, string[]> = {
  chat: [
    ev(undefined, { choices: [{ index: 0, delta: { content: 'Hi é' }, finish_reason: null }], usage: null }),
    ev(undefined, { choices: [{ index: 0, delta: { content: 'the word error' }, finish_reason: null }] }),
    ev(undefined, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    ev(undefined, { choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 2 } } }),
    ev(undefined, { error: { message: 'overloaded' } }),
    ev(undefined, '[DONE]'),
    ': keep-alive\n\n',
    ev(undefined, { choices: [{ index: 0, delta: { content: 'an error, mid-text' }, finish_reason: null }] }),
  ],
  messages: [
    ev('message_start', { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1, cache_read_input_tokens: 2 } } }),
    ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi ✓' } }),
    ev('ping', { type: 'ping' }),
    ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } }),
    ev('message_stop', { type: 'message_stop' }),
    ev('error', { type: 'error', error: { type: 'overloaded_error', message: 'busy' } }),
  ],
  responses: [
    ev('response.created', { type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } }),
    ev('response.output_text.delta', { type: 'response.output_text.delta', delta: 'Hi' }),
    ev(undefined, { type: 'response.output_text.delta', delta: 'no event line' }),
    `event: response.in_progress\n\n`,
    ': comment\n\n',
    ev('response.completed', { type: 'response.completed', response: { id: 'resp_1', usage: { input_tokens: 4, output_tokens: 2 } } }),
    ev(undefined, { type: 'response.failed', response: { id: 'resp_1', error: {} } }),
  ],
  gemini: [
    ev(undefined, { candidates: [{ content: { role: 'model', parts: [{ text: 'Hi é' }] }, index: 0 }], usageMetadata: { promptTokenCount: 6, totalTokenCount: 6 } }),
    ev(undefined, { candidates: [{ content: { role: 'model', parts: [{ text: 'the word "error" and finishReason' }] }, index: 0 }] }),
    ev(undefined, { candidates: [{ content: { role: 'model', parts: [{ text: 'no usage' }] }, index: 0 }] }),
    ev(undefined, {
      candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 6, candidatesTokenCount: 4, thoughtsTokenCount: 2, cachedContentTokenCount: 3, totalTokenCount: 12 },
    }),
    ev(undefined, { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 6 } }),
    ev(undefined, { error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }),
    ': keep-alive\n\n',
  ],
};

/** What a relay learns from a stream through the given decoder. */
function follow(protocol: Protocol, chunks: Buffer[], skip: boolean) {
  const watch = protocols[protocol].watchStream();
  const decoder = skip ? skippingDecoder(createSseDecoder(), watch.skip) : createSseDecoder();
  let decoded = 0;
  for (const chunk of chunks) {
    const events = decoder.push(chunk);
    decoded += events.length;
    for (const event of events) watch.onEvent(event);
  }
  for (const event of decoder.end()) watch.onEvent(event);
  const err = new GatewayError('upstream_error', 'broke off');
  return { result: { usage: watch.usage, finished: watch.finished, frames: watch.errorFrames(err) }, decoded };
}

const lineEnds = (text: string, end: string) => (end === '\n' ? text : text.replace(/\n/g, end));

describe('skipping undecoded SSE chunks', () => {
  for (const protocol of ['chat', 'messages', 'responses', 'gemini'] as const) {
    it(`changes nothing a ${protocol} watcher reports`, () => {
      const arb = fc.record({
        picks: fc.array(fc.nat(EVENTS[protocol].length - 1), { maxLength: 12 }),
        end: fc.constantFrom('\n', '\n', '\r\n', '\r'),
        cuts: fc.array(fc.nat(2000), { maxLength: 8 }),
        atEvents: fc.boolean(),
      });
      fc.assert(
        fc.property(arb, ({ picks, end, cuts, atEvents }) => {
          const events = picks.map((i) => Buffer.from(lineEnds(EVENTS[protocol][i]!, end)));
          const whole = Buffer.concat(events);
          let chunks: Buffer[];
          if (atEvents) chunks = events;
          else {
            const at = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
            chunks = [];
            let from = 0;
            for (const c of [...at, whole.length]) {
              chunks.push(whole.subarray(from, c));
              from = c;
            }
          }
          expect(follow(protocol, chunks, true).result).toEqual(follow(protocol, chunks, false).result);
        }),
        { numRuns: 400 },
      );
    });
  }

  it('decodes only the events a watcher acts on when chunks hold whole events', () => {
    const chunks = [0, 7, 7, 2, 3, 5].map((i) => Buffer.from(EVENTS.chat[i]!));
    const { result, decoded } = follow('chat', chunks, true);
    expect(decoded).toBe(3);
    expect(result).toMatchObject({ usage: { inputTokens: 7, outputTokens: 3, cachedTokens: 2 }, finished: true });
  });

  it('decodes a delta whose text ends with a marker\'s word, as the marker is held without its quote', () => {
    // `"content":"the word error"` holds `error"`: decoded, and the watcher ignores it.
    const { result, decoded } = follow('chat', [Buffer.from(EVENTS.chat[1]!)], true);
    expect(decoded).toBe(1);
    expect(result.finished).toBe(false);
  });

  it('still numbers the Responses events it skipped', () => {
    const chunks = [0, 1, 2, 1, 3, 4].map((i) => Buffer.from(EVENTS.responses[i]!));
    const { result, decoded } = follow('responses', chunks, true);
    expect(decoded).toBe(1);
    expect(result.frames).toContain('"sequence_number":4');
  });
});
