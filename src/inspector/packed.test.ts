import { describe, expect, it } from 'vitest';
import { newExchange } from '../log/exchange.js';
import type { RequestRecord } from '../log/record.js';
import { createArena } from './arena.js';
import { bodiesHeld, packRecord, unpackRecord } from './packed.js';

const big = (model: string, pad = 'p'.repeat(20_000)) => Buffer.from(JSON.stringify({ model, messages: [{ role: 'user', content: pad }], tail: pad }));

function record(client: Buffer, upstream: Buffer | string, answer: (Buffer | string)[]): RequestRecord {
  const exchange = newExchange({ 'content-type': 'application/json' }, 1 << 30);
  exchange.request.chunks.push({ t: 1.5, data: client });
  exchange.request.parsedJson = true;
  const attempt = {
    model: 'm', provider: 'p', upstreamModel: 'u', protocol: 'chat' as const, t: 2, headers: {},
    body: { chunks: [{ t: 2, data: upstream }], truncated: false }, response: { chunks: answer.map((data, i) => ({ t: 3 + i, data })), truncated: false },
  };
  exchange.attempts.push(attempt);
  return { id: 'r', startedAt: 0, start: 0, method: 'POST', path: '/v1/chat/completions', exchange };
}

describe('a packed exchange', () => {
  it.each([
    ['the model renamed shorter', true, big('gpt-test'), big('gpt-u')],
    ['the model renamed longer', true, big('gpt-test'), big('gpt-upstream-model-name')],
    ['the same bytes', true, big('gpt-test'), big('gpt-test')],
    ['a different body (translated)', false, big('gpt-test'), big('gpt-test', 'q'.repeat(20_000))],
    ['a small body', false, Buffer.from('{"model":"a"}'), Buffer.from('{"model":"b"}')],
    ['a string body', false, big('gpt-test'), big('gpt-u').toString()],
  ] as const)('%s: unpacks to the bytes and times captured; the upstream body held as a delta from the client body: %s', (_, delta, client, upstream) => {
    const r = record(client, upstream, ['data: {"a":', Buffer.from('1}\n\n'), 'data: [DONE]\n\n']);
    const arena = createArena(8 * 1024 * 1024);
    const packed = packRecord(r, arena);
    const back = unpackRecord(packed, arena);
    const bytes = (b: Buffer | string) => (typeof b === 'string' ? Buffer.from(b) : b);
    expect(Buffer.concat(back.exchange!.attempts[0]!.body.chunks.map((c) => bytes(c.data)))).toEqual(bytes(upstream));
    expect(back.exchange!.attempts[0]!.response.chunks.map((c) => [c.t, bytes(c.data).toString()])).toEqual([[3, 'data: {"a":'], [4, '1}\n\n'], [5, 'data: [DONE]\n\n']]);
    expect(back.exchange!.request).toEqual({ chunks: [{ t: 1.5, data: client }], truncated: false, parsedJson: true });
    expect(back.exchange).not.toBe(r.exchange);
    expect(packed.facts.exchange).toBeUndefined();
    const upstreamHeld = arena.used - client.length - 'data: {"a":1}\n\ndata: [DONE]\n\n'.length;
    if (delta) expect(upstreamHeld).toBe(0);
    else expect(upstreamHeld).toBe(bytes(upstream).length);
  });

  it('keeps its facts and lets its bodies go once the arena has written over them', () => {
    const arena = createArena(256 * 1024);
    const old = packRecord(record(big('a'), big('b', 'q'.repeat(20_000)), ['x']), arena);
    expect(bodiesHeld(old, arena)).toBe(true);
    for (let i = 0; i < 3; i++) packRecord(record(big('c'), big('d', 'r'.repeat(20_000)), ['y']), arena);
    expect(bodiesHeld(old, arena)).toBe(false);
    const back = unpackRecord(old, arena);
    expect(back.exchange).toBeUndefined();
    expect(back.id).toBe('r');
    expect(arena.used).toBe(arena.size);
  });
});
