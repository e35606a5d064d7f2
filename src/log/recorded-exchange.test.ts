import { describe, expect, it } from 'vitest';
import { readExchangeLine } from './recorded-exchange.js';

const BODY = { bytes: 2, json: {} };
const GOOD = {
  v: 1,
  id: 'req_1',
  time: '2026-01-01T00:00:00.000Z',
  method: 'POST',
  path: '/v1/messages',
  status: 200,
  usage: { inputTokens: 3 },
  request: { headers: { 'user-agent': 'x', 'anthropic-beta': ['a', 'b'] }, body: BODY },
  attempts: [{ model: 'm', provider: 'p', upstreamModel: 'u', protocol: 'chat', t: 1, headers: {}, body: BODY, response: { bytes: 0 } }],
  response: { status: 200, headers: { 'content-length': 2 }, body: { bytes: 9, events: [{ t: 1.5, event: 'x', data: 'y' }] } },
  fieldOfALaterVersion: { kept: true },
};
const line = (fields: Record<string, unknown>) => JSON.stringify({ ...GOOD, ...fields });

describe('readExchangeLine', () => {
  it('reads an exchange, keeping fields it does not know', () => {
    expect(readExchangeLine(JSON.stringify(GOOD))).toEqual({ exchange: GOOD });
  });

  it.each([
    ['not JSON', 'hello', 'not JSON'],
    ['a line cut short', JSON.stringify(GOOD).slice(0, 40), 'not JSON (cut short, or damaged)'],
    ['a JSON array', '[1,2]', 'not a JSON object'],
    ['a JSON string', '"x"', 'not a JSON object'],
    ['null', 'null', 'not a JSON object'],
    ['no id', line({ id: undefined }), '"id": missing'],
    ['no time', line({ time: undefined }), '"time": missing'],
    ['a time that is not a date', line({ time: 'yesterday' }), '"time": not a date'],
    ['no path', line({ path: undefined }), '"path": missing'],
    ['a numeric method', line({ method: 5 }), '"method": expected string, received number'],
    ['a status that is a string', line({ status: '200' }), '"status": expected number, received string'],
    ['headers that are an array', line({ request: { headers: [], body: BODY } }), '"request.headers": expected object, received array'],
    ['a header value that is an object', line({ request: { headers: { 'x\u001b[2J': {} }, body: BODY } }), '"request.headers.*": not a string, a number or a list of strings'],
    ['a request without a body', line({ request: { headers: {} } }), '"request.body": missing'],
    ['attempts that are an object', line({ attempts: {} }), '"attempts": expected array, received object'],
    ['an attempt of an unknown protocol', line({ attempts: [{ ...GOOD.attempts[0], protocol: 'smtp' }] }), '"attempts.0.protocol": expected one of "responses"|"chat"|"messages"|"gemini"'],
    ['an event time that is a string', line({ response: { body: { bytes: 1, events: [{ t: 'soon', data: 1 }] } } }), '"response.body.events.0.t": expected number, received string'],
    ['events that are a string', line({ response: { body: { bytes: 1, events: 'x' } } }), '"response.body.events": expected array, received string'],
    ['usage that is a number', line({ usage: 5 }), '"usage": expected object, received number'],
    ['warnings of numbers', line({ warnings: [1] }), '"warnings.0": expected string, received number'],
    ['a body text that is an object', line({ request: { headers: {}, body: { bytes: 1, text: {} } } }), '"request.body.text": expected string, received object'],
    ['nesting deeper than any recording', line({ deep: JSON.parse(`${'['.repeat(400)}${']'.repeat(400)}`) }), 'nested deeper than 272 levels'],
  ])('refuses %s, saying where', (_name, text, problem) => {
    expect(readExchangeLine(text)).toEqual({ problem });
  });
});
