/**
 * The Stats view with known numbers: four Chat requests whose fake upstream reports 11 input tokens (4
 * of them cached) and 3 output tokens each, and one the upstream refuses; the totals, the percentiles,
 * the per-model and per-key tables and the three charts, at full width and at 400 px.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Inspector } from '#src/inspector/inspector.js';
import { sendJson, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY, type TestGateway } from '../helpers/start-gateway.js';
import { artifact, HAS_CHROMIUM, newPage, suiteName, startInspected, type InspectedGateway } from './browser.js';

describe.skipIf(!HAS_CHROMIUM)(suiteName('the inspector stats'), () => {
  let env: InspectedGateway;
  let browser: Browser;
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let inspector: Inspector;

  const chat = () =>
    call(`${gw.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'count me' }] }),
    });

  beforeAll(async () => {
    env = await startInspected();
    ({ browser, upstream, gw, inspector } = env);
    for (let i = 0; i < 4; i++) expect((await chat()).status).toBe(200);
    upstream.once((_req, res) => sendJson(res, 400, { error: { message: 'no', type: 'invalid_request_error', param: null, code: null } }));
    expect((await chat()).status).toBe(400);
  });
  afterAll(() => env?.close());

  it.each([1280, 400])('shows totals, percentiles, tables and charts at %i px', async (width) => {
    const { page, context, errors } = await newPage(browser, { width });
    await page.goto(inspector.link(gw.url));
    await page.locator('.conn-live').waitFor();
    await page.click('a[data-tab="stats"]');
    const card = (name: string) => page.locator(`.card[data-stat="${name}"] .card-value`).textContent();
    await expect.poll(() => card('requests')).toBe('5');
    expect(await card('errors')).toBe('20%');
    expect(await card('tokens')).toBe('44 / 12');
    expect(await card('hit-rate')).toBe('36%');
    expect(await card('duration')).toMatch(/^\d+ms \/ \d+ms$/);
    expect(await card('cost')).toBe('no price');
    const model = page.locator('table.stats tr[data-group="gpt-test"] td');
    expect((await model.allTextContents()).slice(0, 2)).toEqual(['gpt-test', '5']);
    expect(await page.locator('table.stats tr[data-group^="dev:"]').count()).toBe(1);
    expect(await page.locator('.chart').count()).toBe(3);
    expect(await page.locator('.chart-bar').count()).toBeGreaterThan(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await page.screenshot({ path: artifact(`stats-${width}.png`), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });
});
