/**
 * A second browser signs in with a gateway key of a group allowed to inspect (`inspect: true`), where
 * the printed link works only once: the form on the 401 page, a key of another group refused, a wrong
 * key refused, and the history the first browser saw is there for the second.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Inspector } from '#src/inspector/inspector.js';
import { mayInspect } from '#src/inspector/sign-in.js';
import { call } from '../helpers/http.js';
import { CI_KEY, GATEWAY_KEY, type TestGateway } from '../helpers/start-gateway.js';
import { artifact, HAS_CHROMIUM, newPage, suiteName, startInspected, type InspectedGateway } from './browser.js';

const INSPECT_KEY = 'mgw-inspector-key-for-tests';

describe.skipIf(!HAS_CHROMIUM)(suiteName('signing in to the inspector with a key'), () => {
  let env: InspectedGateway;
  let browser: Browser;
  let gw: TestGateway;
  let inspector: Inspector;

  beforeAll(async () => {
    let served: () => TestGateway | undefined = () => undefined;
    env = await startInspected(
      {
        signIn: (key) => {
          const g = served();
          return g !== undefined && mayInspect(g.gateway.state.config, key);
        },
      },
      {
        keyGroups: {
          dev: { keys: [GATEWAY_KEY], models: ['*'] },
          ci: { keys: [CI_KEY], models: ['gpt-test'] },
          watchers: { keys: [INSPECT_KEY], models: ['echo'], inspect: true },
        },
      },
    );
    ({ browser, gw, inspector } = env);
    served = () => gw;
    const res = await call(`${gw.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'seen by both browsers' }] }),
    });
    expect(res.status).toBe(200);
  });
  afterAll(() => env?.close());

  it('the first browser uses the link; a second signs in with a key of a group that may inspect, and sees the same history', async () => {
    const first = await newPage(browser);
    await first.page.goto(inspector.link(gw.url));
    await first.page.locator('tr.row', { hasText: 'seen by both browsers' }).waitFor();

    const second = await newPage(browser);
    expect((await second.page.goto(`${gw.url}/_inspector/`))?.status()).toBe(401);
    const form = second.page.locator('form');
    await form.waitFor();
    await second.page.screenshot({ path: artifact('sign-in.png') });

    // A key that works for the API but whose group may not inspect, then a made-up one.
    for (const key of [GATEWAY_KEY, CI_KEY, 'not-a-key']) {
      await second.page.fill('input[name="key"]', key);
      const [res] = await Promise.all([second.page.waitForNavigation(), second.page.click('button[type="submit"]')]);
      expect(res?.status()).toBe(401);
      expect(await second.page.textContent('body')).toContain('That key may not sign in');
    }
    await second.page.fill('input[name="key"]', INSPECT_KEY);
    await Promise.all([second.page.waitForURL(`${gw.url}/_inspector/`), second.page.click('button[type="submit"]')]);
    await second.page.locator('tr.row', { hasText: 'seen by both browsers' }).waitFor();
    const [cookie] = await second.context.cookies();
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/_inspector' });
    expect(await second.page.content()).not.toContain(INSPECT_KEY);
    expect(first.errors).toEqual([]);
    expect(second.errors.filter((e) => !/401/.test(e))).toEqual([]);
    await Promise.all([first.context.close(), second.context.close()]);
  });

  it('throttles wrong keys and reads no more than a small body', async () => {
    const post = (body: string) =>
      call(`${gw.url}/_inspector/sign-in`, { headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(gw.url).origin }, body });
    const big = await post(`key=${'x'.repeat(10_000)}`).catch(() => ({ status: 0 }));
    expect([0, 401]).toContain(big.status);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await post('key=wrong')).status);
    expect(statuses).toContain(429);
    // Even the right key waits out the minute once it is reached, from the address that reached it.
    expect((await post(`key=${INSPECT_KEY}`)).status).toBe(429);
    expect((await call(`${gw.url}/_inspector/sign-in`, { method: 'GET' })).status).toBe(405);
  });
});
