import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capture, emptyBody, newExchange, type Exchange, type UpstreamAttempt } from './exchange.js';
import { exchangeJson } from './exchange-json.js';
import { exchangeLine, roundedJson } from './jsonl.js';
import type { RequestRecord } from './record.js';
import { readExchangeLine } from './recorded-exchange.js';

/** The line as written: its pieces joined as bytes, decoded as a reader of the file would. */
function written(r: RequestRecord): string {
  return Buffer.concat(exchangeLine(r).map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString('utf8');
}

/** The fast line must parse to exactly what the exchangeJson form parses to, and be one line. */
function expectSameAsExchangeJson(r: RequestRecord): void {
  const line = written(r);
  expect(line.endsWith('\n')).toBe(true);
  expect(line.slice(0, -1)).not.toMatch(/[\r\n]/);
  expect(JSON.parse(line)).toStrictEqual(JSON.parse(JSON.stringify(exchangeJson(r))));
}

function record(extra: Partial<RequestRecord> = {}): RequestRecord {
  return {
    id: 'req_abc000001',
    startedAt: Date.UTC(2026, 10, 22, 6, 30, 15, 7),
    start: 1234.5,
    method: 'POST',
    path: '/v1/chat/completions',
    protocol: 'chat',
    upstreamProtocol: 'chat',
    userAgent: 'OpenAI/JS 6.49.0',
    keyGroup: 'dev',
    keyId: 'abcd1234',
    model: 'gpt-test',
    provider: 'openai',
    upstreamModel: 'gpt-upstream',
    stream: false,
    status: 200,
    durationMs: 3.25159,
    usage: { inputTokens: 5, outputTokens: 7 },
    ...extra,
  };
}

const REQUEST_HEADERS = {
  host: '127.0.0.1:1234',
  'content-type': 'application/json',
  authorization: 'Bearer gw-secret',
  'user-agent': 'OpenAI/JS 6.49.0',
  'x-list': ['a', 'b'],
};

function attempt(x: Exchange, extra: Partial<UpstreamAttempt> = {}): UpstreamAttempt {
  const a: UpstreamAttempt = {
    model: 'gpt-test',
    provider: 'openai',
    upstreamModel: 'gpt-upstream',
    protocol: 'chat',
    t: 0.123456,
    headers: { 'content-type': 'application/json', 'user-agent': 'OpenAI/JS 6.49.0' },
    body: emptyBody(),
    response: emptyBody(),
    ...extra,
  };
  x.attempts.push(a);
  return a;
}

/** A passthrough exchange: the request, one attempt sending `upstreamBody`, its answer relayed as is. */
function passthrough(requestBody: Buffer | string, answer: (Buffer | string)[], answerType: string): RequestRecord {
  const x = newExchange(REQUEST_HEADERS, 1024 * 1024);
  capture(x, x.request, 0.05, requestBody);
  const a = attempt(x);
  capture(x, a.body, a.t, requestBody);
  a.status = 200;
  a.responseHeaders = { 'content-type': answerType, 'x-request-id': 'up_1', 'set-cookie': ['a=1', 'b=2'] };
  for (const [i, chunk] of answer.entries()) capture(x, a.response, 1 + i * 2.0049, chunk);
  a.durationMs = 4.5678;
  x.responseStatus = 200;
  x.responseHeaders = { 'content-type': answerType, 'content-length': 123, 'cache-control': 'no-cache' };
  x.responseIsUpstream = true;
  return record({ exchange: x });
}

const json = (v: unknown) => Buffer.from(JSON.stringify(v));
const sse = (events: string) => Buffer.from(events);

describe('exchangeLine', () => {
  it('writes a record without an exchange as its facts', () => {
    expectSameAsExchangeJson(record());
    expectSameAsExchangeJson(record({ warnings: ['a', 'b'], error: 'x "quoted"\n', aborted: true, servedBy: 'm2', tries: [{ model: 'm', provider: 'p', status: 529 }] }));
    // A field set to undefined is left out, as JSON.stringify does.
    expectSameAsExchangeJson({ ...record(), usage: undefined } as unknown as RequestRecord);
    expectSameAsExchangeJson(record({ startedAt: Date.UTC(2026, 0, 1, 0, 0, 0, 999), durationMs: Number.NaN }));
  });

  it('writes how a request came when it was not its own HTTP request, and reads it back', () => {
    for (const [transport, expected] of [
      [undefined, undefined],
      ['websocket', 'websocket'],
    ] as const) {
      const line = written(record({ path: '/v1/responses', transport }));
      const read = readExchangeLine(line.trim());
      if (!('exchange' in read)) throw new Error(read.problem);
      expect(read.exchange.transport).toBe(expected);
      expect(line.includes('"transport"')).toBe(expected !== undefined);
    }
  });

  it('writes the facts in the record\'s order after v and time, times to 0.01 ms, and only facts with --no-log-bodies', () => {
    const r = record({ ttfbMs: 0.123456, durationMs: 4.797921802055102 });
    const line = written(r);
    expect(line.startsWith('{"v":1,"time":"2026-11-22T06:30:15.007Z","id":"req_abc000001","method":"POST","path":"/v1/chat/completions",')).toBe(true);
    expect(line).toContain('"durationMs":4.8,"ttfbMs":0.12,');
    const withExchange = passthrough(json({ model: 'gpt-test' }), [json({ id: 'c1' })], 'application/json');
    const facts = exchangeLine(withExchange, false);
    expect(facts).toHaveLength(1);
    expect(Object.keys(JSON.parse(facts[0] as string))).not.toContain('request');
  });

  it('embeds JSON bodies as sent (spaces, escapes, non-ASCII) and reads back the same values', () => {
    const sent = Buffer.from('{ "model" : "gpt-test", "messages": [ {"role":"user","content":"caf\\u00e9 → \\"q\\" \\\\ …"} ], "n": 1.50, "e": 1E3, "big": 12345678901234567890 }');
    const r = passthrough(sent, [json({ id: 'c1', choices: [{ message: { content: 'héllo' } }], usage: { prompt_tokens: 1 } })], 'application/json');
    expectSameAsExchangeJson(r);
    // The bytes are there verbatim, not re-encoded.
    expect(written(r)).toContain('"content":"caf\\u00e9 → \\"q\\" \\\\ …"');
  });

  it('falls back to decoding for bodies that cannot be embedded', () => {
    for (const body of [
      Buffer.from('{\n  "pretty": true\n}'),
      Buffer.from('{"tab":\t1}'),
      Buffer.from('not json at all'),
      Buffer.from('{"truncated": '),
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // invalid UTF-8 inside a string
      Buffer.from('\ufeff{"bom":1}'),
      Buffer.from('"just a string"'),
      Buffer.from('   42   '),
      Buffer.from(`{"deep":${'['.repeat(300)}${']'.repeat(300)}}`), // kept as text by bodyJson: too deep to walk
    ]) {
      expectSameAsExchangeJson(passthrough(body, [Buffer.from('plain text answer')], 'text/plain'));
    }
  });

  it('trusts bodies marked as parsed by the gateway, but not with line breaks', () => {
    for (const sent of ['{"a":\t[1, 2],\t"b":"x"}', '{"a":\n1}', '{"a":\r\n1}']) {
      const r = passthrough(Buffer.from(sent), [json({ ok: true })], 'application/json');
      r.exchange!.request.parsedJson = true;
      r.exchange!.attempts[0]!.body.parsedJson = true;
      expectSameAsExchangeJson(r);
      if (!sent.includes('\n')) expect(written(r)).toContain(sent);
    }
  });

  it('handles bodies in several chunks, as strings, empty and truncated', () => {
    const x = newExchange({ 'content-type': 'application/json; charset=utf-8' }, 200);
    capture(x, x.request, 0.1, Buffer.from('{"a":[1,'));
    capture(x, x.request, 0.2, '2,3],"é":"ü"}');
    const a = attempt(x, { status: 500, error: 'HTTP 500' });
    capture(x, a.body, 0.3, '{"a":[1,2,3]}');
    capture(x, a.response, 0.4, Buffer.alloc(300, 0x61)); // past the limit: truncated
    x.responseStatus = 502;
    x.responseHeaders = { 'content-type': 'application/json' };
    capture(x, x.response, 0.5, JSON.stringify({ error: { message: 'upstream failed', type: 'api_error' } }));
    expectSameAsExchangeJson(record({ exchange: x, status: 502 }));

    const empty = newExchange({}, 100);
    expectSameAsExchangeJson(record({ method: 'GET', path: '/v1/models', exchange: empty }));
  });

  it('writes streams: event names, JSON data embedded, other data as strings, events split across chunks', () => {
    const chunks = [
      sse('event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":3}}}\n\n'),
      sse('event: content_block_delta\r\ndata: {"type":"content_block_delta","delta":{"text":"caf'),
      Buffer.from([0xc3]), // é split across chunks
      Buffer.concat([Buffer.from([0xa9]), sse('"}}\r\n\r\ndata: [DONE]\n\ndata: {"multi":\ndata: "line"}\n\n')]),
      sse(': a comment\n\ndata: {not json}\n\ndata: {"tab":\t1}\n\nevent: ping\ndata: plain\n\n'),
      sse('data: {"last":"without a blank line"}'),
    ];
    expectSameAsExchangeJson(passthrough(json({ model: 'gpt-test', stream: true }), chunks, 'text/event-stream; charset=utf-8'));
  });

  it('writes translated streams and fallbacks, where the client got something else than the upstream sent', () => {
    const x = newExchange(REQUEST_HEADERS, 1024 * 1024);
    capture(x, x.request, 0.05, json({ model: 'm', stream: true }));
    const first = attempt(x, { status: 529, error: 'overloaded' });
    first.responseHeaders = { 'content-type': 'application/json' };
    capture(x, first.body, 0.1, json({ model: 'up' }));
    capture(x, first.response, 0.2, json({ error: { type: 'overloaded_error' } }));
    const second = attempt(x, { model: 'fallback', provider: 'local', protocol: 'messages', t: 0.3 });
    capture(x, second.body, 0.3, json({ model: 'up2', max_tokens: 10 }));
    second.status = 200;
    second.responseHeaders = { 'content-type': 'text/event-stream' };
    capture(x, second.response, 1, sse('event: message_stop\ndata: {"type":"message_stop"}\n\n'));
    x.responseStatus = 200;
    x.responseHeaders = { 'content-type': 'text/event-stream; charset=utf-8' };
    capture(x, x.response, 1.1, 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\n');
    capture(x, x.response, 1.2, 'data: [DONE]\n\n');
    expectSameAsExchangeJson(record({ exchange: x, stream: true, upstreamProtocol: 'messages' }));
  });

  it('matches exchangeJson for any JSON body and answer', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), fc.boolean(), (body, answer, spaced) => {
        const text = JSON.stringify(body, null, spaced ? ' ' : undefined);
        const r = passthrough(Buffer.from(spaced ? text.replace(/\n/g, ' ') : text), [json(answer)], 'application/json');
        expectSameAsExchangeJson(r);
      }),
      { numRuns: 300 },
    );
  });
});

describe('roundedJson', () => {
  const expected = (x: number) => JSON.stringify(Math.round(x * 100) / 100);
  it.each([0, -0, 0.004, 0.005, -0.005, 1, 0.1, 0.29, 1.005, 12.3456, -7.891, 99.999, 123456.78, 1e10 + 0.07, 5e12, 1e13, 1e20, 1e21, NaN, Infinity, -Infinity])(
    'writes %s as JSON.stringify does once rounded',
    (x) => expect(roundedJson(x)).toBe(expected(x)),
  );

  it('agrees with JSON.stringify for any double', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.double({ min: -1e6, max: 1e6 }), fc.integer({ min: -1e9, max: 1e9 }).map((n) => n / 1000)), (x) => {
        expect(roundedJson(x)).toBe(expected(x));
      }),
      { numRuns: 20_000 },
    );
  });
});
