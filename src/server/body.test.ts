import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors.js';
import { MAX_JSON_DEPTH } from '../protocols/json-outline.js';
import { parseRequestBody, readBody } from './body.js';

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

  it('gives no place for a short body, which is not scanned', () => {
    expect(parseRequestBody(Buffer.from('{"model":"a"}')).modelAt).toBeUndefined();
  });

  it('refuses a body nested deeper than the limit', () => {
    const raw = Buffer.from(`{"model":"a","x":${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}}`);
    expect(() => parseRequestBody(raw)).toThrow(/nested more than/);
  });
});
