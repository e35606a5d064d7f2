/**
 * The usage ledger of a real `serve` process (through the `bin/` launcher, which runs `dist/`: build
 * first) killed with SIGKILL mid-load: every line the ledger had written before the kill is there and
 * whole, a line cut short is at most one and is skipped when read, and the next run appends after it
 * and reads the spend back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '#src/cli/main.js';
import { writeSlowly, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, testConfig } from '../helpers/start-gateway.js';
import { waitFor } from '../helpers/wait-for.js';

const BIN = join(new URL('../..', import.meta.url).pathname, 'bin/model-gateway.js');

let upstream: FakeUpstream;
const children: ChildProcess[] = [];
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await upstream.close();
});

function serve(dir: string, config: string): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, [BIN, 'serve', '--config', config, '--port', '0', '--no-color', '--no-watch', '--no-inspector'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const found = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', () => reject(new Error(`serve exited: ${out}`)));
  });
  return { child, url };
}

const chat = (url: string, n: number) =>
  new OpenAI({ baseURL: `${url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 }).chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: `request ${n}` }] });

function ledgerLines(dir: string): string[] {
  const usage = join(dir, 'data', 'usage');
  if (!existsSync(usage)) return [];
  return readdirSync(usage)
    .map((f) => readFileSync(join(usage, f), 'utf8'))
    .join('')
    .split('\n')
    .filter((l) => l !== '');
}

describe('the usage ledger and kill -9', () => {
  it('keeps every line written before the kill, whole, and the next run reads them back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-crash-'));
    const config = join(dir, 'gateway.config.json');
    const base = testConfig(upstream.url);
    const written = {
      ...base,
      server: { dataDir: join(dir, 'data'), timeZone: 'UTC' },
      models: { ...base.models, 'gpt-test': { provider: 'openai', upstreamModel: 'gpt-upstream', price: { input: 1, output: 2 } } },
    };
    writeFileSync(config, JSON.stringify(written));

    const first = serve(dir, config);
    const url = await first.url;
    const acknowledged = 6;
    for (let i = 0; i < acknowledged; i++) await chat(url, i);
    // The ledger has written them: what a crash may no longer take.
    await waitFor(() => ledgerLines(dir).length === acknowledged, 'the ledger lines');
    const before = ledgerLines(dir);

    // Mid-load: answers trickle in while more requests end, and the process is killed outright.
    upstream.always(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      await writeSlowly(res, ['{"id":"c","object":"chat.completion","created":1,"model":"gpt-upstream",', '"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],', '"usage":{"prompt_tokens":3,"completion_tokens":1}}'], 2);
      res.end();
    });
    const load = Array.from({ length: 20 }, (_, i) => chat(url, 100 + i).catch(() => undefined));
    await waitFor(() => ledgerLines(dir).length > acknowledged, 'a line under load');
    first.child.kill('SIGKILL');
    await Promise.all(load);
    upstream.reset();

    const after = ledgerLines(dir);
    expect(after.slice(0, acknowledged)).toEqual(before);
    const unreadable = after.filter((l) => {
      try {
        JSON.parse(l);
        return false;
      } catch {
        return true;
      }
    });
    expect(unreadable.length).toBeLessThanOrEqual(1);

    // The next run appends after whatever the kill left, and its usage report reads all that is whole.
    const second = serve(dir, config);
    const url2 = await second.url;
    await chat(url2, 999);
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));
    let out = '';
    const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: () => true }, env: {}, cwd: dir, stopSignal: () => new Promise<string>(() => {}) };
    expect(await run(['usage', '--config', config, '--since', '1d', '--json'], io)).toBe(0);
    const report = JSON.parse(out) as { total: { requests: number }; skippedLines: number };
    expect(report.total.requests).toBe(after.length - unreadable.length + 1);
    expect(report.skippedLines).toBe(unreadable.length);
  });
});
