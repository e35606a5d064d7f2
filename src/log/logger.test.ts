import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Chalk } from 'chalk';
import { describe, expect, it, vi } from 'vitest';
import { capture, newExchange } from './exchange.js';
import { createLogger } from './logger.js';
import type { RequestRecord } from './record.js';

const record = (n: number): RequestRecord => ({
  id: `req_${n}`,
  startedAt: Date.UTC(2026, 0, 1, 12, 0, n),
  start: 0,
  method: 'POST',
  path: '/v1/messages',
  status: 200,
  model: 'm',
  provider: 'p',
  upstreamModel: 'u',
  keyGroup: 'dev',
  keyId: 'abcd1234',
  durationMs: 12,
});

describe('createLogger', () => {
  it('formats request lines off the request path and prints them together in one write, in order', async () => {
    const writes: string[] = [];
    const logger = createLogger({ out: { write: (s: string) => writes.push(s) }, chalk: new Chalk({ level: 0 }) });
    logger.request(record(1));
    logger.request(record(2));
    await new Promise((r) => setImmediate(r));
    logger.request(record(3));
    expect(writes).toEqual([]);
    await vi.waitFor(() => expect(writes).toHaveLength(1));
    expect(writes[0]!.trim().split('\n').map((l) => l.split(' ')[1])).toEqual(['200', '200', '200']);
    expect(writes[0]).toMatch(/m → p\/u dev:abcd1234 12ms\n.*\n.*12ms\n$/);
  });

  it('prints the other lines when one record cannot be formatted, and does not throw', async () => {
    const writes: string[] = [];
    const logger = createLogger({ out: { write: (s: string) => writes.push(s) }, chalk: new Chalk({ level: 0 }) });
    const broken = { ...record(2), get path(): string {
      throw new Error('no path');
    } };
    logger.request(record(1));
    logger.request(broken);
    logger.request(record(3));
    const lines = await vi.waitFor(() => {
      const printed = writes.join('').trim().split('\n');
      expect(printed).toHaveLength(3);
      return printed;
    });
    expect(lines[1]).toBe('could not log req_2: no path');
    expect(lines[2]).toMatch(/ 200 POST \/v1\/messages m/);
  });

  it('writes notices at once, after the lines still pending', () => {
    const writes: string[] = [];
    const logger = createLogger({ out: { write: (s: string) => writes.push(s) }, chalk: new Chalk({ level: 0 }) });
    logger.request(record(1));
    logger.info('stopping');
    expect(writes.join('')).toMatch(/POST \/v1\/messages[^\n]*\nstopping\n$/);
  });

  it('flushes the log file on close, one JSON object per line', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mgw-logger-')), 'requests.jsonl');
    const logger = createLogger({ out: { write: () => undefined }, chalk: new Chalk({ level: 0 }), logFile: file });
    logger.request(record(1));
    logger.request(record(2));
    await logger.close();
    const entries = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; time: string });
    expect(entries.map((e) => e.id)).toEqual(['req_1', 'req_2']);
    expect(entries[0]!.time).toBe('2026-01-01T12:00:01.000Z');
  });

  it('writes captured JSON bodies into the file line as they were sent', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mgw-logger-')), 'requests.jsonl');
    const logger = createLogger({ out: { write: () => undefined }, chalk: new Chalk({ level: 0 }), logFile: file });
    const small = '{ "model" : "m", "messages": [{"role":"user","content":"caf\\u00e9 ☕"}] }';
    // Large bodies are written as they are, small ones joined with the text around them.
    const large = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'é…'.repeat(20_000) }] });
    const bodies = [small, large, small];
    bodies.forEach((sent, n) => {
      const r = record(n);
      r.exchange = newExchange({ 'content-type': 'application/json' }, 1024 * 1024);
      capture(r.exchange, r.exchange.request, 0.5, Buffer.from(sent));
      logger.request(r);
    });
    await logger.close();
    const text = readFileSync(file, 'utf8');
    expect(text.split(small)).toHaveLength(3);
    expect(text.split(large)).toHaveLength(2);
    const entries = text.trim().split('\n').map((l) => JSON.parse(l) as { request: { body: { json: unknown } } });
    expect(entries.map((e) => e.request.body.json)).toEqual(bodies.map((b) => JSON.parse(b)));
  });
});
