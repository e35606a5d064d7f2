import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors.js';
import { MAX_JSON_DEPTH } from '../protocols/json-outline.js';
import { parseRequestBody, readBody } from './read.js';

/** A request body as node:http hands it over: a Readable with the request's headers. */
function request(headers: Record<string, string>): Readable & IncomingMessage {
  return Object.assign(new Readable({ read() {} }), { headers }) as unknown as Readable & IncomingMessage;
}

/** Whether the promise has settled after a few turns of the event loop. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 3; i++) await turn();
  return done;
}

describe('readBody', () => {
  it.each([
    ['in one chunk', ['{"model":"m"}']],
    ['in three chunks', ['{"mo', 'del":', '"m"}']],
  ])('is done once the declared length is in, %s, without waiting for the end', async (_, parts) => {
    const req = request({ 'content-length': String(Buffer.byteLength(parts.join(''))) });
    const body = readBody(req, 1000);
    for (const part of parts) req.push(Buffer.from(part));
    // No push(null): the 'end' never comes.
    expect(await settled(body)).toBe(true);
    expect((await body).toString()).toBe(parts.join(''));
  });

  it("leaves a body read to its declared length paused before its 'end', which comes on resume", async () => {
    const req = request({ 'content-length': '7' });
    let ended = false;
    req.on('end', () => (ended = true));
    const body = readBody(req, 1000);
    // As node:http hands over a message in one packet: the chunk to a request already flowing, then its end.
    await turn();
    req.push(Buffer.from('{"a":1}'));
    req.push(null);
    expect((await body).toString()).toBe('{"a":1}');
    await settled(body);
    expect([req.isPaused(), ended]).toEqual([true, false]);
    req.resume();
    await settled(body);
    expect(ended).toBe(true);
  });

  it('waits for the end of a body sent without a length (chunked)', async () => {
    const req = request({ 'transfer-encoding': 'chunked' });
    const body = readBody(req, 1000);
    req.push(Buffer.from('{"a":'));
    req.push(Buffer.from('1}'));
    expect(await settled(body)).toBe(false);
    req.push(null);
    expect((await body).toString()).toBe('{"a":1}');
  });

  it('waits while less than the declared length is in', async () => {
    const req = request({ 'content-length': '10' });
    const body = readBody(req, 1000);
    req.push(Buffer.from('12345'));
    expect(await settled(body)).toBe(false);
    req.push(Buffer.from('67890'));
    req.push(null);
    expect((await body).toString()).toBe('1234567890');
  });

  it('refuses a declared length over the limit before reading, and a chunked body once it passes it', async () => {
    await expect(readBody(request({ 'content-length': '11' }), 10)).rejects.toMatchObject({ status: 413 });
    const req = request({});
    const body = readBody(req, 10);
    req.push(Buffer.from('123456'));
    req.push(Buffer.from('789012'));
    await expect(body).rejects.toBeInstanceOf(GatewayError);
  });
});

describe('parseRequestBody', () => {
  const long = (model: string) => JSON.stringify({ tools: [{ model: 'nested' }], model, pad: 'x'.repeat(2 * MAX_JSON_DEPTH) });

  it('gives where the model value sits when the body is long enough for the depth check', () => {
    const raw = Buffer.from(long('claude-x'));
    const { json, modelAt } = parseRequestBody(raw);
    expect((json as { model: string }).model).toBe('claude-x');
    expect(modelAt && raw.subarray(modelAt[0], modelAt[1]).toString()).toBe('"claude-x"');
  });

  it('gives where the model value sits in a short body too (its keys are counted all the same)', () => {
    expect(parseRequestBody(Buffer.from('{"model":"a"}')).modelAt).toEqual([9, 12]);
    expect(parseRequestBody(Buffer.from('["model","a"]')).modelAt).toBeUndefined();
  });

  it('refuses a body nested deeper than the limit', () => {
    const raw = Buffer.from(`{"model":"a","x":${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}}`);
    expect(() => parseRequestBody(raw)).toThrow(/nested more than/);
  });
});

describe('parseRequestBody: a top-level key written twice', () => {
  const pad = `"pad":"${'x'.repeat(2 * MAX_JSON_DEPTH)}"`;
  it.each([
    ['model twice', '{"model":"cheap","messages":[],"model":"dear"}', 'model'],
    ['stream twice', '{"model":"m","stream":false,"stream":true}', 'stream'],
    ['an escaped model before a plain one', '{"mo\\u0064el":"cheap","model":"dear"}', 'model'],
    ['a plain model before an escaped one', '{"model":"cheap","\\u006dodel":"dear"}', 'model'],
    ['tools twice, with spaces about', '{ "tools" : [] ,\n "model":"m", "tools":[{"name":"x"}] }', 'tools'],
    ['model twice in a long body (the depth-checked path)', `{"model":"a",${pad},"model":"b"}`, 'model'],
    ['a key holding quotes and braces', '{"a\\"}{":1,"model":"m","a\\"}{":2}', 'a"}{'],
    ['__proto__ twice', '{"__proto__":{},"model":"m","__proto__":[]}', '__proto__'],
  ])('%s: refused, naming the key', (_, text, key) => {
    let error: unknown;
    try {
      parseRequestBody(Buffer.from(text));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).message).toContain(JSON.stringify(key));
    expect((error as GatewayError).param).toBe(key);
  });

  it.each([
    ['the same key in nested objects', '{"model":"m","a":{"x":1,"x":2},"tools":[{"name":"t","name":"u"}]}'],
    ['a key that is another key escaped differently but not equal', '{"model":"m","Model":"n","model ":"o"}'],
    ['a long body with repeats only below the top', `{"model":"m","t":[{"model":"a","model":"b"}],${pad}}`],
    ['a key in a string value', '{"model":"m","text":"\\"model\\":\\"x\\""}'],
  ])('%s: accepted', (_, text) => {
    expect(() => parseRequestBody(Buffer.from(text))).not.toThrow();
  });
});
