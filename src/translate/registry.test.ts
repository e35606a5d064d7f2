/**
 * The translators are derived from the codecs for every ordered pair of PROTOCOLS, so a protocol
 * added there fails here until its codec is registered. Each pair is checked to be wired the right
 * way round: the caller's codec outside, the upstream's inside.
 */
import { describe, expect, it } from 'vitest';
import { translateContext } from '../../test/helpers/translate-context.js';
import { PROTOCOLS, type Protocol } from '../protocols/types.js';
import { createSseDecoder } from '../sse/parse.js';
import { codecs } from './codecs.js';
import type * as Ir from './ir.js';
import { translatorFor } from './registry.js';

const PAIRS = PROTOCOLS.flatMap((caller) => PROTOCOLS.filter((u) => u !== caller).map((upstream) => [caller, upstream] as const));

const ctx = (caller: Protocol, upstream: Protocol): Ir.TranslateContext =>
  translateContext({ caller, upstream, requestedModel: 'asked', upstreamModel: 'sent', upstreamDialect: upstream === 'messages' ? 'anthropic' : 'openai' });

const request: Ir.Request = {
  model: 'asked',
  system: [{ type: 'text', text: 'Be brief.' }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hi.' }] }],
  tools: [],
  stream: false,
  maxOutputTokens: 64,
};
const answer: Ir.Response = {
  id: 'up-1',
  model: 'sent',
  created: 1_700_000_000,
  content: [{ type: 'text', text: 'Hi, 👋.' }],
  stopReason: 'end',
  usage: { inputTokens: 9, outputTokens: 4 },
};
const textOf = (r: Ir.Response) => r.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');

describe('codecs', () => {
  it.each(PROTOCOLS)('%s has a codec', (p) => {
    expect(codecs[p]).toBeDefined();
    expect(Object.keys(codecs).sort()).toEqual([...PROTOCOLS].sort());
  });
});

describe('translatorFor', () => {
  it('covers every ordered pair of different protocols', () => {
    expect(PAIRS).toHaveLength(PROTOCOLS.length * (PROTOCOLS.length - 1));
    for (const [caller, upstream] of PAIRS) expect(translatorFor(caller, upstream), `${caller}->${upstream}`).toBeDefined();
  });

  it.each(PROTOCOLS)('%s to itself is no translation', (p) => {
    expect(translatorFor(p, p)).toBeUndefined();
  });

  it('builds each pair once, a different translator per pair', () => {
    const seen = new Set(PAIRS.map(([c, u]) => translatorFor(c, u)));
    expect(seen.size).toBe(PAIRS.length);
    for (const [c, u] of PAIRS) expect(translatorFor(c, u)).toBe(translatorFor(c, u));
  });

  it.each(PAIRS)('%s -> %s: caller outside, upstream inside', (caller, upstream) => {
    const t = translatorFor(caller, upstream);
    if (t === undefined) throw new Error(`no translator for ${caller}->${upstream}`);
    const c = ctx(caller, upstream);
    const callerBody = codecs[caller].encodeRequest(request, ctx(caller, caller));

    const sent = codecs[upstream].decodeRequest(t.request(callerBody, c), ctx(upstream, upstream));
    expect(sent.system.map((p) => p.text).join('')).toBe('Be brief.');
    expect(sent.messages.map((m) => [m.role, m.content.flatMap((p) => (p.type === 'text' ? [p.text] : []))])).toEqual([['user', ['Say hi.']]]);

    const upstreamAnswer = codecs[upstream].encodeResponse(answer, ctx(upstream, upstream), {});
    const back = codecs[caller].decodeResponse(t.response(upstreamAnswer, c, callerBody), ctx(caller, caller));
    expect(textOf(back)).toBe('Hi, 👋.');
    expect(back.model).toBe('asked');

    const sse = createSseDecoder();
    const decoder = codecs[caller].decodeStream(ctx(caller, caller));
    const events = [...sse.push(t.responseAsStream(upstreamAnswer, c, callerBody)), ...sse.end()].flatMap((e) => decoder.push(e));
    events.push(...decoder.end());
    const text = events.flatMap((e) => (e.type === 'block_delta' && e.delta.type === 'text' ? [e.delta.text] : [])).join('');
    expect(text).toBe('Hi, 👋.');
    expect(events.at(-1)).toMatchObject({ type: 'finish', stopReason: 'end' });
  });
});
