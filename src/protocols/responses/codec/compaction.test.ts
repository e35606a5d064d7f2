/**
 * Codex's remote compaction on a translated route: a request ending with `compaction_trigger` asks
 * the model for the gateway's summary, whole and without tool calls; the answer, whole or streamed,
 * is exactly one `compaction` item holding the summary in the gateway's seal; on later turns that
 * item opens into the summary as a user message, while one this install did not seal is dropped.
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '#src/errors.js';
import { SUMMARY_PREFIX } from '#src/compact/compacted.js';
import { SUMMARY_INSTRUCTION } from '#src/compact/summary-request.js';
import { reasoningSeal } from '#src/translate/common/reasoning-seal.js';
import { responseToEvents } from '#src/translate/common/ir-stream.js';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '../../json.js';
import { responsesCodec } from './codec.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

const seal = reasoningSeal(Buffer.alloc(32, 3));
const otherInstall = reasoningSeal(Buffer.alloc(32, 4));
const ctx = (withSeal = true) =>
  translateContext({ caller: 'responses', upstream: 'chat', requestedModel: 'm', upstreamModel: 'u', upstreamDialect: 'openai', ...(withSeal ? { seal } : {}) });

const SUMMARY = 'Goal: list the files. Done: ran ls. Next: report.';
const user = (text: string): Json => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const TOOL = { type: 'function', name: 'exec', parameters: { type: 'object', properties: {} } };
const HISTORY: Json[] = [
  user('List the files.'),
  { type: 'function_call', call_id: 'call_1', name: 'exec', arguments: '{}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'a.txt' },
];
const trigger = (extra: Json = {}): Json => ({ model: 'm', stream: true, tools: [TOOL], input: [...HISTORY, { type: 'compaction_trigger' }], ...extra });

/** The model's answer to the summary request: reasoning and text, which only the text of goes in the item. */
const answer: Ir.Response = {
  id: 'r1',
  model: 'u',
  created: 1,
  content: [
    { type: 'reasoning', text: 'Thinking about it.' },
    { type: 'text', text: 'Goal: list the files. ' },
    { type: 'text', text: 'Done: ran ls. Next: report.' },
  ],
  stopReason: 'end',
  usage: { inputTokens: 10, outputTokens: 5 },
};

const userTexts = (request: Ir.Request): string[] =>
  request.messages.filter((m) => m.role === 'user').map((m) => m.content.map((p) => (p.type === 'text' ? p.text : `<${p.type}>`)).join(''));

function frames(sse: string): { event: string; data: Json }[] {
  return sse
    .split('\n\n')
    .filter((f) => f.includes('data: '))
    .map((f) => ({ event: /^event: (.*)$/m.exec(f)?.[1] ?? '', data: JSON.parse(/^data: (.*)$/m.exec(f)?.[1] ?? '{}') as Json }));
}

const gatewayError = (fn: () => unknown): GatewayError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('no error thrown');
};

describe('a request ending with compaction_trigger', () => {
  it('asks for the summary as the last user message, whole and calling no tool, and drops nothing', () => {
    const c = ctx();
    const request = responsesCodec.decodeRequest(trigger(), c);
    expect(userTexts(request).at(-1)).toBe(SUMMARY_INSTRUCTION);
    expect(request.messages.at(-1)?.role).toBe('user');
    expect(request.stream).toBe(false);
    expect(request.toolChoice).toEqual({ type: 'none' });
    expect(request.tools.map((t) => t.name)).toEqual(['exec']);
    expect(c.warnings).toEqual([]);
  });

  it('keeps the tool choice asked when there is no tool to call', () => {
    const request = responsesCodec.decodeRequest({ model: 'm', input: [user('hi'), { type: 'compaction_trigger' }] }, ctx());
    expect(request.toolChoice).toBeUndefined();
    expect(userTexts(request)).toEqual(['hi', SUMMARY_INSTRUCTION]);
  });

  it('is an ordinary request when the trigger is not the last item (the trigger is dropped and listed)', () => {
    const c = ctx();
    const request = responsesCodec.decodeRequest({ model: 'm', stream: true, input: [{ type: 'compaction_trigger' }, user('hi')] }, c);
    expect(userTexts(request)).toEqual(['hi']);
    expect(request.stream).toBe(true);
    expect(c.warnings).toEqual(['compaction_trigger history']);
  });

  it('is refused with a 502 before the model is asked when the gateway has no seal', () => {
    const err = gatewayError(() => responsesCodec.decodeRequest(trigger(), ctx(false)));
    expect(err.status).toBe(502);
  });
});

describe('the answer to a compaction', () => {
  it('is one compaction item holding the sealed text of the answer, whole', () => {
    const body = responsesCodec.encodeResponse(answer, ctx(), trigger({ stream: false }));
    const output = body.output as Json[];
    expect(output).toEqual([{ type: 'compaction', id: 'cmp_test', encrypted_content: expect.stringMatching(/^mgw1\./) }]);
    expect(seal.open(output[0]!.encrypted_content as string, '')).toEqual({ compaction: SUMMARY });
    expect(body.status).toBe('completed');
  });

  it('is the same one item streamed: text held, the item added and done at the end, listed by response.completed', () => {
    const c = ctx();
    const encoder = responsesCodec.encodeStream(c, trigger());
    const out = frames(responseToEvents(answer).map((e) => encoder.push(e)).join('') + encoder.end());
    const whole = responsesCodec.encodeResponse(answer, ctx(), trigger({ stream: false }));
    expect(out.map((f) => f.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(out[2]!.data.item).toEqual((whole.output as Json[])[0]);
    expect(out[3]!.data.item).toEqual((whole.output as Json[])[0]);
    expect((out[4]!.data.response as Json).output).toEqual(whole.output);
  });

  it('is a 502 when the model gave no text, or the gateway has no seal', () => {
    const empty: Ir.Response = { ...answer, content: [{ type: 'reasoning', text: 'Hmm.' }] };
    expect(gatewayError(() => responsesCodec.encodeResponse(empty, ctx(), trigger())).status).toBe(502);
    expect(gatewayError(() => responsesCodec.encodeResponse(answer, ctx(false), trigger())).status).toBe(502);
  });

  it('is an ordinary message for a request without the trigger', () => {
    const body = responsesCodec.encodeResponse(answer, ctx(), { model: 'm', input: HISTORY });
    expect((body.output as Json[]).map((i) => i.type)).toEqual(['reasoning', 'message']);
  });
});

describe('a compaction item on a later turn', () => {
  const item = (responsesCodec.encodeResponse(answer, ctx(), trigger()).output as Json[])[0]!;
  const later = (compaction: Json): Json => ({ model: 'm', input: [user('List the files.'), compaction, user('And now?')] });

  it("opens into the summary as a user message when it is the gateway's own", () => {
    const c = ctx();
    const request = responsesCodec.decodeRequest(later(item), c);
    expect(userTexts(request)).toEqual(['List the files.', SUMMARY_PREFIX + SUMMARY, 'And now?']);
    expect(c.warnings).toEqual([]);
  });

  it.each([
    ['OpenAI’s own', { type: 'compaction', encrypted_content: 'gAAAAABopaque' }],
    ['sealed by another install', { type: 'compaction', encrypted_content: otherInstall.seal('', { compaction: 'Forged.' }) }],
    ['altered', { type: 'compaction', encrypted_content: (item.encrypted_content as string).replace(/^mgw1\.../, 'mgw1.xx') }],
    ["the gateway's own, but the gateway has no seal now", item],
  ])('is dropped and listed when %s', (name, compaction) => {
    const c = name.includes('no seal') ? ctx(false) : ctx();
    const request = responsesCodec.decodeRequest(later(compaction), c);
    expect(userTexts(request)).toEqual(['List the files.', 'And now?']);
    expect(c.warnings).toEqual(['compaction history']);
  });
});
