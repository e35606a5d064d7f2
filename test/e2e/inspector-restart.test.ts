/**
 * The inspector across a restart, as `serve` sets it up: with the usage ledger kept, a gateway
 * started again shows the earlier requests' rows (facts only, marked as from before the restart);
 * `status --link` asks the running gateway for a fresh one-time link with the link key only the local
 * user can read, and the key's file goes when the gateway stops.
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '#src/cli/io.js';
import { run } from '#src/cli/main.js';
import type { ExchangeList } from '#src/inspector/common/types.js';
import { linkKeyFile, writeLinkKey } from '#src/inspector/link-key.js';
import { VERSION } from '#src/version.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call, closedPort } from '../helpers/http.js';
import { GATEWAY_KEY, testConfig } from '../helpers/start-gateway.js';
import { waitFor } from '../helpers/wait-for.js';

let upstream: FakeUpstream;
const dirs: string[] = [];
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(async () => {
  await upstream.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function harness(cwd: string) {
  let out = '';
  let stop: (s: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => {
    stop = resolve;
  });
  const io: CliIo = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (out += s) }, env: {}, cwd, stopSignal: () => stopped };
  return { io, out: () => out, stop: () => stop('SIGTERM') };
}

/** `serve` in a folder whose config keeps the ledger in `data`, on `port`, until stopped. */
async function serve(cwd: string, args: string[] = []) {
  const h = harness(cwd);
  const exit = run(['serve', '--no-color', '--no-watch', ...args], h.io);
  const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(h.out())?.[1], 'the banner');
  return {
    url,
    out: h.out,
    async stop() {
      h.stop();
      expect(await exit).toBe(0);
    },
  };
}

/** `status` in `cwd` with `args`: its exit code and what it printed. */
async function status(cwd: string, args: string[] = []) {
  const h = harness(cwd);
  const code = await run(['status', ...args], h.io);
  return { code, out: h.out() };
}
const statusLink = (cwd: string) => status(cwd, ['--link']);

async function rows(url: string, link: string): Promise<ExchangeList> {
  const signIn = await call(link, { method: 'GET' });
  expect(signIn.status).toBe(303);
  const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
  const list = await call(`${url}/_inspector/api/exchanges`, { method: 'GET', headers: { cookie } });
  expect(list.status).toBe(200);
  return list.json as ExchangeList;
}

describe('the inspector across a restart', () => {
  it('shows the requests of the run before (from the ledger), and status --link gives a fresh link to the running gateway', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'mgw-restart-'));
    dirs.push(cwd);
    const data = join(cwd, 'data');
    const port = await closedPort();
    const config = testConfig(upstream.url);
    writeFileSync(join(cwd, 'gateway.config.json'), JSON.stringify({ ...config, server: { ...config.server, port, dataDir: data, ledger: true } }));

    const first = await serve(cwd);
    const keyFile = linkKeyFile(data, port);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(keyFile, '..')).mode & 0o777).toBe(0o700);
    const openai = new OpenAI({ baseURL: `${first.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
    for (const text of ['before the restart, one', 'before the restart, two']) await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: text }] });
    // The ledger is written off the request path; a gateway that stops writes what it holds first.
    await first.stop();
    expect(existsSync(keyFile)).toBe(false);

    // No gateway: nothing to give a link, and the command says so.
    const none = await statusLink(cwd);
    expect(none.code).toBe(1);
    expect(none.out).toMatch(/no gateway running at .*: no inspector link to give/);

    // With history on, so this run's requests are kept with no page open.
    const second = await serve(cwd, ['--inspector-history']);
    try {
      const asked = await statusLink(cwd);
      expect(asked.code, asked.out).toBe(0);
      const link = /^inspector: (http:\S+) {2}\(new; works once\)$/m.exec(asked.out)?.[1];
      expect(link, asked.out).toMatch(new RegExp(`^${second.url}/_inspector/\\?token=[A-Za-z0-9_-]{43}$`));
      const list = await rows(second.url, link!);
      const restored = list.exchanges.filter((s) => s.restored);
      expect(restored).toHaveLength(2);
      for (const s of restored) expect(s).toMatchObject({ model: 'gpt-test', keyGroup: 'dev', status: 200, bodiesDropped: true });
      // The link worked once; a second status --link gives another.
      expect((await call(link!, { method: 'GET' })).status).toBe(401);
      const again = /^inspector: (http:\S+)/m.exec((await statusLink(cwd)).out)?.[1];
      expect(again).toBeDefined();
      expect(again).not.toBe(link);

      // A request of this run is a row of its own, newest first, not marked.
      await new OpenAI({ baseURL: `${second.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'after the restart' }],
      });
      const after = await rows(second.url, again!);
      // (`status` asks `GET /` first, which is a row too.)
      expect(after.exchanges.filter((s) => s.model === 'gpt-test').map((s) => s.restored === true)).toEqual([false, true, true]);

      // A key file someone else wrote (or a stale one) gets no link.
      writeFileSync(keyFile, `${'A'.repeat(43)}\n`);
      const forged = await statusLink(cwd);
      expect(forged.code).toBe(1);
      expect(forged.out).toMatch(/gave no inspector link \(HTTP 403\)/);
    } finally {
      await second.stop();
    }
  });

  it('status finds the gateways started on other ports than the configured one by their link keys, and gives each a link', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'mgw-elsewhere-'));
    dirs.push(cwd);
    const data = join(cwd, 'data');
    const [configured, stale] = [await closedPort(), await closedPort()];
    const config = testConfig(upstream.url);
    writeFileSync(join(cwd, 'gateway.config.json'), JSON.stringify({ ...config, server: { ...config.server, port: configured, dataDir: data } }));
    // A key file left by a gateway killed outright names a port where nothing answers: it is passed over.
    writeLinkKey(linkKeyFile(data, stale), 'B'.repeat(43));

    const one = await serve(cwd, ['--port', String(await closedPort())]);
    const two = await serve(cwd, ['--port', '0']);
    try {
      const running = [one.url, two.url].sort((a, b) => Number(new URL(a).port) - Number(new URL(b).port));
      const found = await status(cwd);
      expect(found.code).toBe(0);
      expect(found.out).toBe(
        `no gateway running at http://127.0.0.1:${configured}; found on other ports by their inspector link keys:\n` +
          running.map((url) => `gateway: running at ${url} (version ${VERSION}), not in the background\n`).join(''),
      );
      const asked = await statusLink(cwd);
      expect(asked.code, asked.out).toBe(0);
      const links = [...asked.out.matchAll(/^inspector: (http:\S+) {2}\(new; works once\)$/gm)].map((m) => m[1]!);
      expect(links.map((link) => new URL(link).origin)).toEqual(running);
      for (const link of links) expect((await call(link, { method: 'GET' })).status).toBe(303);

      // Once one stops, its key file goes with it, and only the other is found.
      await one.stop();
      expect((await status(cwd)).out).toContain(`found on another port by its inspector link key:\ngateway: running at ${two.url} `);
    } finally {
      await two.stop();
    }
    const none = await statusLink(cwd);
    expect(none.code).toBe(1);
    expect(none.out).toMatch(new RegExp(`no gateway running at http://127\\.0\\.0\\.1:${configured}: no inspector link to give`));
  });
});
