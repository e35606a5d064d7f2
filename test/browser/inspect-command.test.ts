/**
 * The inspector from the command line: `serve` prints its one-time link (and leaves it out
 * with --no-inspector), and `model-gateway inspect FILE` opens the same page on a
 * `--log-file` recording, in-process through `run(argv, io)`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '#src/cli/io.js';
import { run } from '#src/cli/main.js';
import type { ExchangeList } from '#src/inspector/common/types.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY, PROVIDER_ANTHROPIC_KEY, PROVIDER_OPENAI_KEY, startGateway, testConfig } from '../helpers/start-gateway.js';
import { artifact, HAS_CHROMIUM, launchBrowser, newPage, suiteName } from './browser.js';
import { waitFor } from '../helpers/wait-for.js';

interface Harness {
  readonly io: CliIo;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly stop: () => void;
}

function harness(cwd: string): Harness {
  let out = '';
  let err = '';
  let stop: (s: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  return {
    io: { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, env: {}, cwd, stopSignal: () => stopped },
    stdout: () => out,
    stderr: () => err,
    stop: () => stop('SIGTERM'),
  };
}

const tempDir = () => mkdtempSync(join(tmpdir(), 'mgw-inspect-'));
const LINK = /(http:\/\/127\.0\.0\.1:\d+\/_inspector\/\?token=[A-Za-z0-9_-]+)/;

let upstream: FakeUpstream;
/** A recording made by a real gateway with --log-file: a translated stream, a native call, a refused one. */
let recording: string;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  recording = join(tempDir(), 'requests.jsonl');
  const gw = await startGateway(testConfig(upstream.url), { logFile: recording });
  const headers = { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'user-agent': 'claude-cli/2.1.330 (external, cli)' };
  const body = (model: string, stream: boolean) => JSON.stringify({ model, max_tokens: 50, stream, system: 'Be brief.', messages: [{ role: 'user', content: 'hello' }] });
  expect((await call(`${gw.url}/v1/messages`, { headers, body: body('local-chat', true) })).status).toBe(200);
  expect((await call(`${gw.url}/v1/messages`, { headers, body: body('claude-test', false) })).status).toBe(200);
  expect((await call(`${gw.url}/v1/messages`, { headers: { ...headers, 'x-api-key': 'wrong' }, body: body('claude-test', false) })).status).toBe(401);
  await gw.close();
  writeFileSync(recording, 'not an exchange\n', { flag: 'a' });
});
afterAll(() => upstream.close());

/** Starts `inspect` on the recording; resolves with its link once printed. */
async function startInspect(args: readonly string[] = []) {
  const h = harness(tempDir());
  const exited = run(['inspect', recording, '--port', '0', '--no-color', ...args], h.io);
  const link = await waitFor(() => LINK.exec(h.stdout())?.[1], `the link in: ${h.stdout()}${h.stderr()}`);
  return { h, link, base: new URL(link).origin, exited };
}

describe('the inspector from the command line', () => {
  it('serve prints a one-time link to the inspector that signs a browser in', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'gateway.config.json'), JSON.stringify({ providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, keyGroups: { dev: { keys: [GATEWAY_KEY] } } }));
    const h = harness(dir);
    const exited = run(['serve', '--port', '0', '--no-color', '--no-watch'], h.io);
    const link = await waitFor(() => /inspector\s+(\S+)/.exec(h.stdout())?.[1], 'the inspector line');
    expect(link).toMatch(LINK);
    const signIn = await call(link, { method: 'GET' });
    expect(signIn.status).toBe(303);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    const list = await call(`${new URL(link).origin}/_inspector/api/exchanges`, { method: 'GET', headers: { cookie } });
    expect((list.json as ExchangeList).mode).toBe('live');
    h.stop();
    expect(await exited).toBe(0);
  });

  it('serve --no-inspector prints no link and serves no page', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'gateway.config.json'), JSON.stringify({ providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, keyGroups: { dev: { keys: [GATEWAY_KEY] } } }));
    const h = harness(dir);
    const exited = run(['serve', '--port', '0', '--no-color', '--no-watch', '--no-inspector'], h.io);
    const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(h.stdout())?.[1], 'the banner');
    expect(h.stdout()).not.toMatch(/_inspector/);
    expect((await call(`${url}/_inspector/`, { method: 'GET' })).status).toBe(404);
    h.stop();
    expect(await exited).toBe(0);
  });

  it('inspect serves a recording: the same sign-in, the list from the file, no live events', async () => {
    const { h, link, base, exited } = await startInspect();
    expect(h.stdout()).toMatch(/inspector on .*requests\.jsonl: 3 exchanges · 1 line skipped, not exchanges \(listed above\)/);
    expect(h.stderr()).toMatch(/requests\.jsonl: 1 line skipped, not an exchange:\n {2}line 4: not JSON\n/);
    expect((await call(`${base}/_inspector/api/exchanges`, { method: 'GET' })).status).toBe(401);
    const signIn = await call(link, { method: 'GET' });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    expect((await call(link, { method: 'GET' })).status).toBe(401);
    const list = (await call(`${base}/_inspector/api/exchanges`, { method: 'GET', headers: { cookie } })).json as ExchangeList;
    expect(list).toMatchObject({ mode: 'recording', source: 'requests.jsonl' });
    // The refused request never had its body read: no model.
    expect(list.exchanges.map((e) => [e.model, e.status, e.translated])).toEqual([
      [undefined, 401, false],
      ['claude-test', 200, false],
      ['local-chat', 200, true],
    ]);
    expect(list.exchanges[2]).toMatchObject({ client: { kind: 'claude-code' }, stream: true, ttftMs: expect.any(Number) });
    expect((await call(`${base}/_inspector/api/events`, { method: 'GET', headers: { cookie } })).status).toBe(404);
    const everything = JSON.stringify(list);
    for (const secret of [GATEWAY_KEY, PROVIDER_OPENAI_KEY, PROVIDER_ANTHROPIC_KEY]) expect(everything).not.toContain(secret);
    h.stop();
    expect(await exited).toBe(0);
  });

  it('inspect keeps the last --keep exchanges and says so', async () => {
    const { h, exited } = await startInspect(['--keep', '2']);
    expect(h.stdout()).toMatch(/3 exchanges \(the last 2 kept; --keep and --memory raise the limits\)/);
    h.stop();
    expect(await exited).toBe(0);
  });

  it('inspect of a file that is not there exits 1 and says why', async () => {
    const h = harness(tempDir());
    expect(await run(['inspect', 'nowhere.jsonl'], h.io)).toBe(1);
    expect(h.stderr()).toBe('Cannot read the recording nowhere.jsonl: no such file.\n');
  });
});

describe.skipIf(!HAS_CHROMIUM)(suiteName('inspect FILE in a browser'), () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('opens the page on the recording and shows an exchange with its translation', async () => {
    const { h, link, exited } = await startInspect();
    const { page, context, errors } = await newPage(browser);
    await page.goto(link);
    await expect.poll(() => page.locator('.conn').textContent()).toBe('recording: requests.jsonl');
    expect(await page.locator('.memory').textContent()).toMatch(/1 line of the file skipped, not exchanges \(line 4\)$/);
    expect(await page.locator('tr.row').count()).toBe(3);
    expect(await page.locator('button.pause').isVisible()).toBe(false);
    await page.locator('tr.row', { hasText: 'local-chat' }).click();
    const translation = page.locator('.part-translation');
    expect(await translation.locator('h3').textContent()).toBe('Translation messages → chat');
    expect(await translation.locator('[data-group="moved"]').textContent()).toMatch(/system → messages\[0\]\.content/);
    expect(await page.locator('.part-upstream-response tr.event').count()).toBeGreaterThan(3);
    await page.click('button.copy-curl');
    expect(await page.locator('pre.curl').textContent()).toMatch(/^ {2}curl -sS (-N )?-X POST "\$MODEL_GATEWAY_URL"\/v1\/messages \\$/m);
    await page.screenshot({ path: artifact('recording-detail.png'), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
    h.stop();
    expect(await exited).toBe(0);
  });
});
