/**
 * What the inspector shows of traffic that came before any page was open (history), and the list's
 * why: the protocol, the prompt, the error's reason, retries and fallbacks marked, the filter finding
 * words that only a body holds; and the conversation view of a native tool loop with an image.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Inspector } from '#src/inspector/inspector.js';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY, PROVIDER_OPENAI_KEY, type TestGateway } from '../helpers/start-gateway.js';
import { artifact, DOCS_SCREENSHOT, HAS_CHROMIUM, newPage, suiteName, type TestPage, startInspected, type InspectedGateway } from './browser.js';

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe.skipIf(!HAS_CHROMIUM)(suiteName('the inspector: history and the list\'s why'), () => {
  let env: InspectedGateway;
  let browser: Browser;
  let gw: TestGateway;
  let inspector: Inspector;

  const messages = (body: Record<string, unknown>) =>
    call(`${gw.url}/v1/messages`, {
      headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'user-agent': 'claude-cli/2.1.330 (external, cli)' },
      body: JSON.stringify({ max_tokens: 100, ...body }),
    });

  beforeAll(async () => {
    env = await startInspected(
      {},
      {
        providers: {
          echo: { type: 'echo' },
          // Nothing listens on port 9: every call fails at once, and the model falls back.
          down: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: PROVIDER_OPENAI_KEY, retries: 0 },
        },
        models: { echo: { provider: 'echo' }, flaky: { provider: 'down', fallbacks: ['echo'] }, broken: { provider: 'down' } },
        keyGroups: { dev: { keys: [GATEWAY_KEY], models: ['*'] } },
      },
    );
    ({ browser, gw, inspector } = env);
    // All of it before any page is open.
    expect((await messages({ model: 'echo', messages: [{ role: 'user', content: 'the kept past, before any page' }] })).status).toBe(200);
    expect((await messages({ model: 'flaky', messages: [{ role: 'user', content: 'served by a fallback' }] })).status).toBe(200);
    expect((await messages({ model: 'broken', messages: [{ role: 'user', content: 'nobody answers' }] })).status).toBeGreaterThanOrEqual(500);
    const tools = [{ name: 'lookup', input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }];
    expect((await messages({ model: 'echo', system: 'You look things up.', tools, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }, { type: 'text', text: 'please lookup zebra-striped-unicorns' }] }] })).status).toBe(200);
    const loop = [
      { role: 'user', content: 'please lookup zebra-striped-unicorns' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'I should call the tool.', signature: 'sig' }, { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'zebra' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'found 3 unicorns' }] },
    ];
    expect((await messages({ model: 'echo', system: 'You look things up.', tools, stream: true, messages: loop })).status).toBe(200);
  });
  afterAll(() => env?.close());

  async function signedIn(width = 1280): Promise<TestPage> {
    const t = await newPage(browser, { width });
    await t.page.goto(inspector.link(gw.url));
    await t.page.locator('.conn-live').waitFor();
    return t;
  }

  it('shows the traffic that came before the page opened, with the protocol, the prompt, the reason of an error, retries and fallbacks', async () => {
    const { page, context, errors } = await signedIn();
    const rows = page.locator('tr.row');
    await rows.nth(4).waitFor();
    expect(await rows.count()).toBe(5);
    const first = page.locator('tr.row', { hasText: 'the kept past, before any page' });
    expect(await first.locator('.col-route').textContent()).toBe('messages');
    expect(await first.locator('.preview').textContent()).toBe('the kept past, before any page');

    const fallback = page.locator('tr.row', { hasText: 'served by a fallback' });
    await expect(fallback.locator('.fallback').textContent()).resolves.toContain('fallback echo');
    expect(await fallback.locator('.retries').textContent()).toMatch(/↻1/);
    expect(await fallback.locator('.col-status .badge').textContent()).toBe('200');

    const failed = page.locator('tr.row', { hasText: 'nobody answers' });
    expect((await failed.locator('.why').textContent())?.length).toBeGreaterThan(0);
    expect(await failed.getAttribute('class')).toMatch(/st-5xx/);
    await page.screenshot({ path: artifact('history-list.png') });
    if (DOCS_SCREENSHOT) await page.screenshot({ path: DOCS_SCREENSHOT.replace('inspector.png', 'inspector-list.png') });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('finds an exchange by words only its body holds', async () => {
    const { page, context, errors } = await signedIn();
    await page.locator('tr.row').nth(4).waitFor();
    // The tool's result is in no row's facts or preview: only the streamed request's body says it.
    await page.fill('input.filter-text', 'found 3 unicorns');
    await expect.poll(() => page.locator('tr.row').count()).toBe(1);
    await page.fill('input.filter-text', 'no-such-words-anywhere');
    await expect.poll(() => page.locator('tr.row').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('reads a native tool loop as a conversation: the system prompt, the image, the call, its result, the streamed answer; the request once', async () => {
    const { page, context, errors } = await signedIn();
    await page.locator('tr.row').nth(4).waitFor();
    await page.locator('tr.row').first().locator('a').click();
    const c = page.locator('.part-conversation');
    await c.waitFor();
    expect(await c.locator('.msg-system').textContent()).toContain('You look things up.');
    expect(await c.locator('details.thinking').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await expect(c.locator('.tool-call').textContent()).resolves.toMatch(/lookup.*"q": "zebra"/s);
    await expect(c.locator('.tool-result').textContent()).resolves.toMatch(/lookup.*found 3 unicorns/s);
    await expect(c.locator('.msg-answer').textContent()).resolves.toMatch(/streamed, \d+ events assembled.*Tool result: found 3 unicorns/s);
    await page.screenshot({ path: artifact('conversation-tool-loop.png'), fullPage: true });
    if (DOCS_SCREENSHOT) await page.screenshot({ path: DOCS_SCREENSHOT.replace('inspector.png', 'inspector-conversation.png'), fullPage: true });
    // Raw: one request, the provider's copy a click away.
    await page.click('button[data-view="raw"]');
    expect(await page.locator('section.part-client-request').count()).toBe(1);
    expect(await page.locator('details.native-upstream').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);

    await page.goto(`${gw.url}/_inspector/#/`);
    await page.locator('tr.row').nth(1).locator('a').click();
    await page.click('button[data-view="conversation"]');
    const img = page.locator('.part-conversation img.thumb');
    await img.waitFor();
    expect(await img.getAttribute('src')).toBe(`data:image/png;base64,${PNG}`);
    expect(await img.evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBe(1);
    await expect(page.locator('.part-conversation .msg-answer .tool-call').textContent()).resolves.toContain('lookup');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe.skipIf(!HAS_CHROMIUM)(suiteName('the inspector: history past inspector.bodiesPerSecond'), () => {
  let env: InspectedGateway;

  beforeAll(async () => {
    // Rows only while no page is open.
    env = await startInspected({ bodiesPerSecond: 0 }, { providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, keyGroups: { dev: { keys: [GATEWAY_KEY], models: ['*'] } } });
    const res = await call(`${env.gw.url}/v1/messages`, {
      headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'echo', max_tokens: 10, messages: [{ role: 'user', content: 'kept as a row only' }] }),
    });
    expect(res.status).toBe(200);
  });
  afterAll(() => env?.close());

  it('shows the row of an exchange kept without its bodies, and says why in its detail view', async () => {
    const { page, context, errors } = await newPage(env.browser, { width: 1280 });
    await page.goto(env.inspector.link(env.gw.url));
    const row = page.locator('tr.row');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.first().locator('.col-status .badge').textContent()).toBe('200');
    await row.first().locator('a').click();
    await expect(page.locator('p.muted', { hasText: 'Only the facts of this exchange were kept' }).textContent()).resolves.toContain('inspector.bodiesPerSecond');
    expect(errors).toEqual([]);
    await context.close();
  });
});
