/**
 * The inspector page in a real browser against a real gateway: signing in with the
 * one-time link, rows pushed as requests start and end, filters, pause, and the page
 * in a narrow dark window.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Inspector } from '#src/inspector/inspector.js';
import { messageFrames } from '../helpers/canned.js';
import { writeSlowly, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { CI_KEY, GATEWAY_KEY, type TestGateway } from '../helpers/start-gateway.js';
import { artifact, HAS_CHROMIUM, newPage, suiteName, type TestPage, startInspected, type InspectedGateway } from './browser.js';

describe.skipIf(!HAS_CHROMIUM)(suiteName('the inspector list in a browser'), () => {
  let env: InspectedGateway;
  let browser: Browser;
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let inspector: Inspector;

  beforeAll(async () => {
    env = await startInspected();
    ({ browser, upstream, gw, inspector } = env);
  });
  afterAll(() => env?.close());

  /** A page signed in through a fresh one-time link, with the live connection up. */
  async function signedIn(options: { width?: number; dark?: boolean } = {}): Promise<TestPage> {
    const t = await newPage(browser, options);
    await t.page.goto(inspector.link(gw.url));
    await t.page.locator('.conn-live').waitFor();
    return t;
  }

  const messages = (content: string, extra: { headers?: Record<string, string>; model?: string; stream?: boolean } = {}) =>
    call(`${gw.url}/v1/messages`, {
      headers: {
        'x-api-key': GATEWAY_KEY,
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
        'user-agent': 'claude-cli/2.1.330 (external, cli)',
        ...extra.headers,
      },
      body: JSON.stringify({ model: extra.model ?? 'claude-test', max_tokens: 100, stream: extra.stream ?? false, messages: [{ role: 'user', content }] }),
    });

  const chat = (key: string, model = 'gpt-test') =>
    call(`${gw.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'OpenAI/Python 1.99.1' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('answers 401 without the cookie, signs in through the printed link once, and refuses the link a second time', async () => {
    const anonymous = await newPage(browser);
    expect((await anonymous.page.goto(`${gw.url}/_inspector/`))?.status()).toBe(401);
    expect(await anonymous.page.textContent('body')).toMatch(/one-time token/);

    const link = inspector.link(gw.url);
    const { page, context, errors } = await newPage(browser);
    const res = await page.goto(link);
    expect(res?.status()).toBe(200);
    expect(page.url()).toBe(`${gw.url}/_inspector/`);
    await expect(page.locator('header h1').textContent()).resolves.toMatch(/model-gateway/);
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/_inspector' });
    expect(await page.evaluate(() => document.cookie)).toBe('');

    // The same link in another browser profile: spent.
    expect((await anonymous.page.goto(link))?.status()).toBe(401);
    // In the browser that used it, it still leads to the page.
    expect((await page.goto(link))?.status()).toBe(200);
    expect(errors).toEqual([]);
    await Promise.all([anonymous.context.close(), context.close()]);
  });

  it('shows a request within a second of its start, newest first, and completes the row when it ends', async () => {
    const { page, context, errors } = await signedIn();
    await messages('warm-up');
    await page.locator('tr.row').first().waitFor();

    upstream.once(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      await writeSlowly(res, messageFrames('claude-upstream'), 150);
      res.end();
    });
    const streamed = messages('streamed slowly', { stream: true, headers: { 'x-claude-code-session-id': 'sess-live' } });
    const row = page.locator('tr.row.pending');
    await row.waitFor({ timeout: 1000 });
    const rows = page.locator('tr.row');
    const id = await row.getAttribute('data-id');
    // Newest first: the running request is the top row.
    expect(await rows.first().getAttribute('data-id')).toBe(id);

    expect((await streamed).status).toBe(200);
    const done = page.locator(`tr.row[data-id="${id}"]:not(.pending)`);
    await done.waitFor({ timeout: 5000 });
    expect(await done.locator('.col-status').textContent()).toBe('200');
    expect(await done.locator('.col-client').textContent()).toBe('Claude Code 2.1.330');
    expect(await done.locator('.col-model .model-route').textContent()).toBe('claude-test → anthropic/claude-upstream');
    expect(await done.locator('.col-model .preview').textContent()).toBe('streamed slowly');
    expect(await done.locator('.col-route').textContent()).toBe('messages');
    expect(await done.locator('.col-in').textContent()).toBe('17');
    expect(await done.locator('.col-cached').textContent()).toBe('5 +2w');
    expect(Number.parseFloat((await done.locator('.col-ttft').textContent()) ?? '')).toBeGreaterThan(0);
    await page.screenshot({ path: artifact('list.png') });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('filters by text, status, model and key group', async () => {
    const { page, context, errors } = await signedIn();
    expect((await chat(GATEWAY_KEY)).status).toBe(200);
    expect((await chat(CI_KEY)).status).toBe(200);
    expect((await chat('not-a-key')).status).toBe(401);
    // Every attempt fails, however many retries the gateway makes.
    upstream.always((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'upstream exploded' } }));
    });
    try {
      expect((await messages('fail please')).status).toBeGreaterThanOrEqual(500);
    } finally {
      upstream.reset();
    }
    await page.locator('tr.row.st-5xx').waitFor();

    const shown = async () => (await page.locator('tr.row').allTextContents()).length;
    const allRows = await shown();
    const statuses = async () => page.locator('tr.row .col-status').allTextContents();

    // Besides the bad key, the browser's own /favicon.ico request (on the 401 page) is a 404 here.
    await page.selectOption('.filter-status', '4xx');
    await expect.poll(async () => (await statuses()).every((s) => s.startsWith('4'))).toBe(true);
    expect(await statuses()).toContain('401');
    await page.selectOption('.filter-status', '5xx');
    await expect.poll(async () => (await statuses()).every((s) => s.startsWith('5'))).toBe(true);
    await page.selectOption('.filter-status', 'all');

    await page.selectOption('.filter-group', 'ci');
    await expect.poll(async () => page.locator('tr.row .col-key').allTextContents()).toEqual(['ci:ci-bot']);
    await page.selectOption('.filter-group', '');

    await page.selectOption('.filter-model', 'gpt-test');
    await expect.poll(async () => new Set(await page.locator('tr.row .col-model .model-route').allTextContents())).toEqual(new Set(['gpt-test → openai/gpt-upstream']));
    await page.selectOption('.filter-model', '');

    await page.fill('.filter-text', 'exploded');
    await expect.poll(statuses).toHaveLength(1);
    await page.fill('.filter-text', 'python ci-bot');
    await expect.poll(async () => page.locator('tr.row .col-client').allTextContents()).toEqual(['OpenAI SDK (python) 1.99.1']);
    await page.fill('.filter-text', 'no such thing');
    await expect.poll(shown).toBe(0);
    expect(await page.locator('.empty').textContent()).toMatch(/No exchange matches/);
    await page.fill('.filter-text', '');
    await expect.poll(shown).toBe(allRows);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('holds new rows while paused and shows them on resume', async () => {
    const { page, context, errors } = await signedIn();
    const before = await page.locator('tr.row').count();
    await page.click('button.pause');
    expect((await messages('while paused')).status).toBe(200);
    await expect.poll(async () => page.locator('button.pause').textContent()).toBe('Resume (1 new)');
    expect(await page.locator('tr.row').count()).toBe(before);
    expect(await page.locator('.conn').textContent()).toBe('paused');
    await page.click('button.pause');
    await expect.poll(async () => page.locator('tr.row').count()).toBe(before + 1);
    expect(await page.locator('button.pause').textContent()).toBe('Pause');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('fits a narrow window and follows the dark colour scheme', async () => {
    const { page, context, errors } = await signedIn({ width: 420, dark: true });
    expect((await messages('narrow and dark')).status).toBe(200);
    await page.locator('tr.row').first().waitFor();
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = (background.match(/\d+/g) ?? []).map(Number);
    expect(r! + g! + b!).toBeLessThan(150);
    // Low-priority columns give way; the page itself does not scroll sideways.
    expect(await page.locator('th.col-key').isVisible()).toBe(false);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await page.screenshot({ path: artifact('list-narrow-dark.png') });
    expect(errors).toEqual([]);
    await context.close();
  });
});
