import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors.js';
import { readBody } from './body.js';

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
