import { describe, expect, it } from 'vitest';
import type { BodyJson, ExchangeJson } from '../log/exchange-json.js';
import { credentialHeaders, replayRequest } from './replay-request.js';
import { replayTarget } from './target.js';

const TARGET = replayTarget('http://127.0.0.1:8787');

function exchange(headers: Record<string, unknown>, body: BodyJson, fields: Partial<ExchangeJson> = {}): ExchangeJson {
  return { v: 1, id: 'req_1', time: '2026-01-01T00:00:00.000Z', method: 'POST', path: '/v1/messages', request: { headers, body }, ...fields };
}

const JSON_BODY = { bytes: 40, json: { model: 'claude-test', max_tokens: 5, messages: [] } };

describe('replayRequest headers', () => {
  it.each([
    ['Bearer when the client sent authorization', { authorization: '[redacted]' }, { authorization: 'Bearer k-1' }],
    ['x-api-key when the client sent x-api-key', { 'x-api-key': '[redacted]' }, { 'x-api-key': 'k-1' }],
    ['api-key (Azure style) as sent', { 'api-key': '[redacted]' }, { 'api-key': 'k-1' }],
    ['no key when the client sent none', {}, {}],
  ])('puts the key in the recorded header: %s', (_name, recorded, expected) => {
    const out = replayRequest(exchange(recorded, JSON_BODY), TARGET, { key: 'k-1' });
    expect(out).toMatchObject({ request: { headers: expected } });
    if ('request' in out) expect(Object.keys(out.request.headers).filter((h) => /auth|api-key/.test(h))).toEqual(Object.keys(expected));
  });

  it('re-sends the headers that matter and drops those of the old connection', () => {
    const recorded = {
      host: '127.0.0.1:8787',
      connection: 'keep-alive',
      'content-length': '40',
      'transfer-encoding': 'chunked',
      'accept-encoding': 'gzip, deflate',
      cookie: '[redacted]',
      origin: 'http://localhost:5173',
      referer: 'http://localhost:5173/app',
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': ['a', 'b'],
      'openai-beta': 'responses=v1',
      'user-agent': 'claude-cli/2.1',
      'X-Custom': 'kept',
    };
    const out = replayRequest(exchange(recorded, JSON_BODY), TARGET, {});
    expect(out).toEqual({
      request: {
        method: 'POST',
        url: new URL('http://127.0.0.1:8787/v1/messages'),
        headers: {
          'content-type': 'application/json',
          'anthropic-version': '2023-06-01',
          'anthropic-beta': 'a, b',
          'openai-beta': 'responses=v1',
          'user-agent': 'claude-cli/2.1',
          'x-custom': 'kept',
        },
        body: JSON.stringify(JSON_BODY.json),
      },
    });
  });
});

describe('replayRequest body', () => {
  it.each([
    ['the recorded JSON', JSON_BODY, {}, JSON.stringify(JSON_BODY.json)],
    ['the JSON with --model', JSON_BODY, { model: 'other' }, JSON.stringify({ ...JSON_BODY.json, model: 'other' })],
    ['text that is not JSON, as it was', { bytes: 4, text: 'nope' }, { model: 'other' }, 'nope'],
    ['an empty body that was read', { bytes: 0, text: '' }, {}, ''],
  ])('sends %s', (_name, body, options, sent) => {
    expect(replayRequest(exchange({}, body), TARGET, options)).toMatchObject({ request: { body: sent } });
  });

  it('sends no body for a GET', () => {
    const out = replayRequest(exchange({}, { bytes: 0 }, { method: 'GET', path: '/v1/models' }), TARGET);
    expect(out).toEqual({ request: { method: 'GET', url: new URL('http://127.0.0.1:8787/v1/models'), headers: {} } });
  });

  it.each([
    ['no captured request', { v: 1, id: 'r', time: '', method: 'POST', path: '/v1/messages' } as ExchangeJson, 'the request was not captured'],
    ['a cut body', exchange({}, { bytes: 1000, text: '{"mod', truncated: true }), 'its body was cut at the capture limit (1000 bytes kept)'],
    ['a body never read', exchange({}, { bytes: 0 }, { status: 401 }), 'its body was not recorded (refused with 401 before it was read)'],
  ])('skips an exchange with %s', (_name, x, reason) => {
    expect(replayRequest(x, TARGET)).toEqual({ skip: reason });
  });
});

describe('replayRequest refuses what could be more than a request to the gateway', () => {
  it.each([
    ['a method with a URL in it', { method: 'GET http://x' }, 'its method is not an HTTP method name'],
    ['a method with a header after it', { method: 'POST\r\nX: y' }, 'its method is not an HTTP method name'],
    ['a method with a space', { method: 'POST ' }, 'its method is not an HTTP method name'],
    ['an empty method', { method: '' }, 'its method is not an HTTP method name'],
    ['CONNECT', { method: 'CONNECT' }, 'its method CONNECT is not one the gateway serves (GET, HEAD, POST)'],
    ['DELETE', { method: 'DELETE' }, 'its method DELETE is not one the gateway serves (GET, HEAD, POST)'],
    ['a lower-case post', { method: 'post' }, 'its method post is not one the gateway serves (GET, HEAD, POST)'],
    ['a path to another host', { path: '@127.0.0.1:9/v1/messages' }, /^its path is not a plain gateway path: /],
    ['a path that leaves the prefix', { path: '/../x' }, /^its path is not a plain gateway path: /],
  ])('%s', (_name, fields, reason) => {
    // Refused before anything else is looked at: even an exchange that would be skipped.
    for (const x of [exchange({}, JSON_BODY, fields), exchange({}, { bytes: 0 }, { ...fields, status: 401 })]) {
      expect(replayRequest(x, TARGET, { key: 'k-1' })).toEqual({ refuse: typeof reason === 'string' ? reason : expect.stringMatching(reason) });
    }
  });

  it.each([
    ['a colon', { 'x-a: b': 'c' }, 'a recorded header name is not an HTTP token'],
    ['a space', { 'x a': 'c' }, 'a recorded header name is not an HTTP token'],
    ['CRLF', { 'x-a\r\nhost': 'evil' }, 'a recorded header name is not an HTTP token'],
    ['nothing', { '': 'c' }, 'a recorded header name is not an HTTP token'],
    ['non-ASCII', { 'x-ä': 'c' }, 'a recorded header name is not an HTTP token'],
  ])('a header name with %s', (_name, headers, reason) => {
    expect(replayRequest(exchange(headers, JSON_BODY), TARGET, { key: 'k-1' })).toEqual({ refuse: reason });
  });

  it.each([
    ['CRLF', 'a\r\nx-injected: 1'],
    ['LF', 'a\nb'],
    ['CR', 'a\rb'],
    ['NUL', 'a\u0000b'],
    ['ESC', 'a\u001bb'],
    ['CRLF in one of a list', ['ok', 'a\r\nb']],
    ['a character past Latin-1', 'a\u2028b'],
  ])('a header value with %s', (_name, value) => {
    expect(replayRequest(exchange({ 'x-custom': value }, JSON_BODY), TARGET, { key: 'k-1' })).toEqual({
      refuse: 'a recorded header value holds a line break, NUL or other control character',
    });
  });

  it('sends tabs and Latin-1 in header values as they were', () => {
    const out = replayRequest(exchange({ 'x-custom': 'a\tb é' }, JSON_BODY), TARGET);
    expect(out).toMatchObject({ request: { headers: { 'x-custom': 'a\tb é' } } });
  });
});

describe('credentialHeaders', () => {
  it('names the credential headers the client sent, whatever their case', () => {
    expect(credentialHeaders(exchange({ Authorization: '[redacted]', 'x-api-key': '[redacted]', accept: '*/*' }, JSON_BODY))).toEqual([
      'Authorization',
      'x-api-key',
    ]);
    expect(credentialHeaders(exchange({}, JSON_BODY))).toEqual([]);
  });
});
