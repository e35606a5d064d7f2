/**
 * What encodeResponse and encodeStream write, read by the official `@google/genai` SDK as a client
 * would (`generateContent`, `generateContentStream`): every chunk a `GenerateContentResponse`, the
 * parts, signatures, finish reason and usage where the SDK looks for them, and an error mid-stream
 * raised by the SDK.
 */
import { GoogleGenAI, type GenerateContentResponse, type Part } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accumulateEvents as accumulate, responseToEvents } from '#src/translate/common/ir-stream.js';
import type * as Ir from '#src/translate/ir.js';
import { startAnswerServer, type AnswerServer } from '../../../../test/helpers/answer-server.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';
import { geminiCodec } from './codec.js';

const ctx = (): Ir.TranslateContext =>
  translateContext({ caller: 'gemini', upstream: 'chat', requestedModel: 'gemini-caller', upstreamModel: 'gpt-up', upstreamDialect: 'openai' });

/** Model name (from the path) → what to answer. */
const answers = new Map<string, { json: string; sse: string }>();

function register(name: string, events: Ir.StreamEvent[]): void {
  const encoder = geminiCodec.encodeStream(ctx(), {});
  const sse = events.map((e) => encoder.push(e)).join('') + encoder.end();
  const finish = events.at(-1);
  const json = finish?.type === 'finish' ? JSON.stringify(geminiCodec.encodeResponse(accumulate(events), ctx(), {})) : '{}';
  answers.set(name, { json, sse });
}

let server: AnswerServer;
let sdk: GoogleGenAI;

beforeAll(async () => {
  server = await startAnswerServer((path) => {
    const m = /models\/([^:]+):(\w+)/.exec(path);
    const answer = m ? answers.get(m[1]!) : undefined;
    if (!answer) return { status: 404, body: '{}' };
    return m![2] === 'streamGenerateContent' ? { headers: { 'content-type': 'text/event-stream' }, body: answer.sse } : { body: answer.json };
  });
  sdk = new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: server.url } });
});

afterAll(() => server.close());

const response = (content: Ir.AssistantPart[], stopReason: Ir.StopReason = 'end'): Ir.Response => ({
  id: 'up-1',
  model: 'gpt-up',
  created: 1,
  content,
  stopReason,
  usage: { inputTokens: 40, outputTokens: 12, reasoningTokens: 5, cacheReadTokens: 10 },
});

async function streamed(model: string): Promise<GenerateContentResponse[]> {
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of await sdk.models.generateContentStream({ model, contents: 'hi' })) chunks.push(chunk);
  return chunks;
}

/** The parts of all chunks, text pieces of one kind joined as a client would show them. */
function joined(chunks: readonly GenerateContentResponse[]): Part[] {
  const parts: Part[] = [];
  for (const p of chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])) {
    const last = parts.at(-1);
    if (last && p.text !== undefined && last.text !== undefined && !!p.thought === !!last.thought && !last.functionCall && p.thoughtSignature === undefined) last.text += p.text;
    else parts.push({ ...p });
  }
  return parts.filter((p) => !(p.text === '' && p.thoughtSignature === undefined));
}

describe('the Gemini SDK reads what the gateway writes', () => {
  it('text and a tool call, whole and streamed alike', async () => {
    const res = response(
      [
        { type: 'reasoning', text: 'thinking' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_call', id: 'call_1', name: 'get_weather', kind: 'function', arguments: '{"city":"Paris"}' },
      ],
      'tool_calls',
    );
    const events = responseToEvents(res);
    // Split the text in two deltas, as a stream would.
    const text = events.findIndex((e) => e.type === 'block_delta' && e.delta.type === 'text');
    events.splice(text, 1, { type: 'block_delta', index: 1, delta: { type: 'text', text: 'Let me ' } }, { type: 'block_delta', index: 1, delta: { type: 'text', text: 'check.' } });
    register('tools', events);

    const whole = await sdk.models.generateContent({ model: 'tools', contents: 'hi' });
    expect(whole.text).toBe('Let me check.');
    expect(whole.functionCalls).toEqual([{ id: 'call_1', name: 'get_weather', args: { city: 'Paris' } }]);
    expect(whole.candidates?.[0]?.finishReason).toBe('STOP');
    expect(whole.usageMetadata).toEqual({ promptTokenCount: 40, candidatesTokenCount: 7, thoughtsTokenCount: 5, cachedContentTokenCount: 10, totalTokenCount: 52 });
    expect(whole.modelVersion).toBe('gemini-caller');

    const chunks = await streamed('tools');
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.map((c) => c.responseId)).toEqual(chunks.map(() => whole.responseId));
    expect(joined(chunks)).toEqual(whole.candidates?.[0]?.content?.parts);
    expect(chunks.at(-1)?.usageMetadata).toEqual(whole.usageMetadata);
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('max tokens', async () => {
    register('cut', responseToEvents(response([{ type: 'text', text: 'Once upon' }], 'max_tokens')));
    const chunks = await streamed('cut');
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
  });

  it('an error mid-stream is raised by the SDK with its message', async () => {
    register('broken', [
      { type: 'start', id: 'x', model: 'm', created: 1 },
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Part' } },
      { type: 'error', message: 'Overloaded', errorType: 'overloaded_error' },
    ]);
    await expect(streamed('broken')).rejects.toThrow(/Overloaded/);
  });
});
