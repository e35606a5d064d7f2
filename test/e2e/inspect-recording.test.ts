/**
 * `model-gateway inspect FILE` on damaged and hostile recordings, through `run(argv, io)`
 * in-process: one bad line costs that line only. Every good exchange is listed and opens,
 * the bad lines are reported on stderr by number and in the page's list data, and fields
 * of the wrong type never reach the code that reads them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '#src/cli/io.js';
import { run } from '#src/cli/main.js';
import type { ExchangeDetail, ExchangeList } from '#src/inspector/common/types.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY, startGateway, testConfig, waitForLines } from '../helpers/start-gateway.js';

const dir = mkdtempSync(join(tmpdir(), 'mgw-inspect-bad-'));
let upstream: FakeUpstream;
/** Two lines a real gateway wrote with --log-file. */
let good: [string, string];
let ids: [string, string];

beforeAll(async () => {
  upstream = await startFakeUpstream();
  const file = join(dir, 'real.jsonl');
  const gw = await startGateway(testConfig(upstream.url), { logFile: file });
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
  const stream = await anthropic.messages.create({ model: 'local-chat', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'hi' }] });
  for await (const _ of stream);
  await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 }).chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
  await waitForLines(gw, 2);
  await gw.close();
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  good = [lines[0]!, lines[1]!];
  ids = [JSON.parse(good[0]).id as string, JSON.parse(good[1]).id as string];
});
afterAll(() => upstream.close());

/** A real line with some fields replaced. */
const altered = (fields: Record<string, unknown>) => JSON.stringify({ ...(JSON.parse(good[1]) as object), id: 'req_bad', ...fields });

async function inspect(text: string, args: string[] = []) {
  const file = join(dir, `r${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, text);
  let out = '';
  let err = '';
  let stop: (s: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  const io: CliIo = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, env: {}, cwd: dir, stopSignal: () => stopped };
  const exited = run(['inspect', file, '--port', '0', '--no-color', ...args], io);
  const until = Date.now() + 10_000;
  const linkIn = () => /(http:\/\/127\.0\.0\.1:\d+\/_inspector\/\?token=\S+)/.exec(out)?.[1];
  let link = linkIn();
  while (link === undefined) {
    if (Date.now() > until) throw new Error(`no link in: ${out}${err}`);
    await new Promise((r) => setTimeout(r, 20));
    link = linkIn();
  }
  const base = new URL(link).origin;
  const cookie = String((await call(link, { method: 'GET' })).headers['set-cookie']).split(';')[0]!;
  const get = (path: string, headers: Record<string, string> = {}) => call(`${base}/_inspector${path}`, { method: 'GET', headers: { cookie, ...headers } });
  return {
    stdout: () => out,
    stderr: () => err,
    get,
    close: async () => {
      stop('SIGTERM');
      expect(await exited).toBe(0);
    },
  };
}

describe('inspect FILE with lines that are not exchanges', () => {
  it.each([
    ['a line that is not JSON', () => 'not json at all', /line 2: not JSON/],
    ['a JSON array', () => '[1,2,3]', /line 2: not a JSON object/],
    ['JSON of the wrong shape', () => '{"hello":"world"}', /line 2: "id": missing/],
    ['an exchange missing its request body', () => altered({ request: { headers: {} } }), /line 2: "request\.body": missing/],
    ['attempts that are an object', () => altered({ attempts: { 0: 'x' } }), /line 2: "attempts": expected array/],
    ['headers that are null', () => altered({ request: { headers: null, body: { bytes: 0 } } }), /line 2: "request\.headers": expected object/],
    ['headers that are an array', () => altered({ response: { status: 200, headers: ['a'], body: { bytes: 0 } } }), /line 2: "response\.headers": expected object/],
    ['a status that is a string', () => altered({ status: '200 OK' }), /line 2: "status": expected number/],
    ['stream events that are a string', () => altered({ response: { status: 200, body: { bytes: 1, events: 'x' } } }), /line 2: "response\.body\.events": expected array/],
    ['usage that is text', () => altered({ usage: 'lots' }), /line 2: "usage": expected object/],
    ['a time that is not a date', () => altered({ time: 'noon' }), /line 2: "time": not a date/],
    [
      'nesting a hundred thousand levels deep',
      () => altered({ request: { headers: {}, body: { bytes: 1, json: 'DEEP' } } }).replace('"DEEP"', `${'['.repeat(1e5)}${']'.repeat(1e5)}`),
      /line 2: nested deeper than/,
    ],
  ])('%s: every good exchange listed and opened, the bad line reported', async (_name, bad, report) => {
    const h = await inspect([good[0], bad(), good[1], ''].join('\n'));
    try {
      expect(h.stderr()).toMatch(/r\w+\.jsonl: 1 line skipped, not an exchange:\n/);
      expect(h.stderr()).toMatch(report);
      expect(h.stdout()).toMatch(/: 2 exchanges · 1 line skipped, not exchanges \(listed above\)/);
      const list = await h.get('/api/exchanges');
      expect(list.status).toBe(200);
      const data = list.json as ExchangeList;
      expect(data.exchanges.map((e) => e.id).sort()).toEqual([...ids].sort());
      expect(data.skippedLines).toEqual({ count: 1, lines: [2] });
      for (const id of ids) {
        const detail = await h.get(`/api/exchanges/${id}`);
        expect(detail.status).toBe(200);
        expect((detail.json as ExchangeDetail).exchange.id).toBe(id);
      }
    } finally {
      await h.close();
    }
  });

  it('a huge line (past --max-line) and a last line cut short by a crash', async () => {
    const huge = altered({ request: { headers: {}, body: { bytes: 1, text: 'x'.repeat(1.5 * 1024 * 1024) } } });
    const h = await inspect([good[0], huge, good[1], good[1].slice(0, 100)].join('\n'), ['--max-line', '1']);
    try {
      expect(h.stderr()).toContain(': 2 lines skipped, not exchanges:\n  line 2: longer than 1 MiB (see --max-line)\n  line 4: not JSON (cut short, or damaged)\n');
      const data = (await h.get('/api/exchanges')).json as ExchangeList;
      expect(data.exchanges).toHaveLength(2);
      expect(data.skippedLines).toEqual({ count: 2, lines: [2, 4] });
    } finally {
      await h.close();
    }
  });

  it('a file of good lines reports nothing', async () => {
    const h = await inspect(`${good.join('\n')}\n`);
    try {
      expect(h.stderr()).toBe('');
      expect(h.stdout()).toMatch(/: 2 exchanges\n/);
      expect((await h.get('/api/exchanges')).json).not.toHaveProperty('skippedLines');
    } finally {
      await h.close();
    }
  });
});

describe('inspect FILE guards its page as the gateway does', () => {
  it.each([
    ['a foreign Host (DNS rebinding)', { host: 'evil.example' }],
    ['a Host that only starts like a loopback one', { host: '127.0.0.1.evil.example' }],
    ['a foreign Origin', { origin: 'http://evil.example' }],
    ['Origin: null', { origin: 'null' }],
  ])('%s gets 403, and the page keeps serving', async (_, headers) => {
    const h = await inspect(`${good.join('\n')}\n`);
    try {
      const refused = await h.get('/api/exchanges', headers);
      expect(refused.status).toBe(403);
      expect(refused.text).toMatch(/not accepted/);
      expect((await h.get('/api/exchanges')).status).toBe(200);
      expect((await h.get('/api/exchanges', { host: 'localhost' })).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
