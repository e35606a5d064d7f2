/**
 * The inspector in a 400 px window: the list's figures (time, status, duration), the Sessions view's
 * hit rate, a stream's event table and the conversation all fit, nothing of them cut, and the page
 * does not scroll sideways. Measured on the elements' widths, not on a screenshot.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Inspector } from '#src/inspector/inspector.js';
import { messageFrames } from '../helpers/canned.js';
import { writeSlowly, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY, type TestGateway } from '../helpers/start-gateway.js';
import { artifact, HAS_CHROMIUM, newPage, suiteName, type TestPage, startInspected, type InspectedGateway } from './browser.js';

const WIDTH = 400;

/** The elements matching `selector` whose content is wider than their box, or that reach past the window's right edge. */
function clipped(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>(sel))) {
      if (el.offsetParent === null) continue;
      const rect = el.getBoundingClientRect();
      if (el.scrollWidth > el.clientWidth + 1 || rect.right > window.innerWidth + 1 || rect.left < -1) {
        out.push(`${el.className || el.tagName}: "${el.textContent}" (content ${el.scrollWidth}px in ${el.clientWidth}px, right edge ${Math.round(rect.right)}px)`);
      }
    }
    return out;
  }, selector);
}

const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

describe.skipIf(!HAS_CHROMIUM)(suiteName('the inspector in a 400 px window'), () => {
  let env: InspectedGateway;
  let browser: Browser;
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let inspector: Inspector;

  beforeAll(async () => {
    env = await startInspected();
    ({ browser, upstream, gw, inspector } = env);
    // Traffic before any page opens: history shows it.
    const send = (content: string, stream = false, session = 'sess-narrow-0123456789') =>
      call(`${gw.url}/v1/messages`, {
        headers: {
          'x-api-key': GATEWAY_KEY,
          'anthropic-version': '2023-06-01',
          'content-type': 'application/json',
          'user-agent': 'claude-cli/2.1.330 (external, cli)',
          'x-claude-code-session-id': session,
        },
        body: JSON.stringify({ model: 'claude-test', max_tokens: 100, stream, messages: [{ role: 'user', content }] }),
      });
    upstream.once(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Slow enough for a duration in seconds ("1.38s" was read "1.38" when cut).
      await writeSlowly(res, messageFrames('claude-upstream'), 120);
      res.end();
    });
    expect((await send('a stream', true)).status).toBe(200);
    for (const content of ['one', 'two', 'three']) expect((await send(content)).status).toBe(200);
  });
  afterAll(() => env?.close());

  async function signedIn(): Promise<TestPage> {
    const t = await newPage(browser, { width: WIDTH });
    await t.page.goto(inspector.link(gw.url));
    await t.page.locator('.conn-live').waitFor();
    return t;
  }

  it('the list: time, status and duration whole, durations in ms and s alike', async () => {
    const { page, context, errors } = await signedIn();
    await page.locator('tr.row').nth(3).waitFor();
    const durations = await page.locator('tr.row td.col-duration').allTextContents();
    expect(durations.some((d) => /^\d+ms$/.test(d))).toBe(true);
    expect(durations.some((d) => /^\d+\.\d\ds$/.test(d))).toBe(true);
    expect(await clipped(page, 'tr.row td.col-time, tr.row td.col-status, tr.row td.col-duration, thead th')).toEqual([]);
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.screenshot({ path: artifact('narrow-list.png') });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('Sessions: the hit rate and the per-request strip in view', async () => {
    const { page, context, errors } = await signedIn();
    await page.click('a[data-tab="sessions"]');
    await page.locator('tr.session').first().waitFor();
    expect(await page.locator('tr.session td.hit-rate').first().isVisible()).toBe(true);
    expect(await clipped(page, 'tr.session td, table.sessions th')).toEqual([]);
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.screenshot({ path: artifact('narrow-sessions.png') });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("an exchange: the conversation, and a stream's event table, within the window", async () => {
    const { page, context, errors } = await signedIn();
    await page.locator('tr.row').nth(3).locator('a').click();
    await page.locator('.part-conversation').waitFor();
    expect(await clipped(page, '.conversation .msg, .facts dd')).toEqual([]);
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.screenshot({ path: artifact('narrow-conversation.png'), fullPage: true });
    await page.click('button[data-view="raw"]');
    await page.locator('.part-upstream-response tr.event').first().waitFor();
    expect(await clipped(page, 'table.timeline, .part')).toEqual([]);
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.screenshot({ path: artifact('narrow-events.png'), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });
});
