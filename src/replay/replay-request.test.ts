import { describe, expect, it } from 'vitest';
import type { BodyJson, ExchangeJson } from '../log/exchange-json.js';
import { credentialHeaders, replayRequest } from './replay-request.js';

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
    const out = replayRequest(exchange(recorded, JSON_BODY), { key: 'k-1' });
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
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': ['a', 'b'],
      'openai-beta': 'responses=v1',
      'user-agent': 'claude-cli/2.1',
      'X-Custom': 'kept',
    };
    const out = replayRequest(exchange(recorded, JSON_BODY), {});
    expect(out).toEqual({
      request: {
        method: 'POST',
        path: '/v1/messages',
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
    expect(replayRequest(exchange({}, body), options)).toMatchObject({ request: { body: sent } });
  });

  it('sends no body for a GET', () => {
    const out = replayRequest(exchange({}, { bytes: 0 }, { method: 'GET', path: '/v1/models' }));
    expect(out).toEqual({ request: { method: 'GET', path: '/v1/models', headers: {} } });
  });

  it.each([
    ['no captured request', { v: 1, id: 'r', time: '', method: 'POST', path: '/v1/messages' } as ExchangeJson, 'the request was not captured'],
    ['a cut body', exchange({}, { bytes: 1000, text: '{"mod', truncated: true }), 'its body was cut at the capture limit (1000 bytes kept)'],
    ['a body never read', exchange({}, { bytes: 0 }, { status: 401 }), 'its body was not recorded (refused with 401 before it was read)'],
  ])('skips an exchange with %s', (_name, x, reason) => {
    expect(replayRequest(x)).toEqual({ skip: reason });
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
