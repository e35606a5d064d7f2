/**
 * An exchange's detail and the sessions view in a real browser: a recorded Codex request
 * translated to a Messages provider (both bodies, what translation changed, the upstream
 * stream as a timeline), a large body, copy as curl, and the prompt-cache hit rate of a
 * Claude Code session whose upstream reports cached tokens.
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Inspector } from '#src/inspector/inspector.js';
import { CANNED_TEXT, messageFrames, messageJson } from '../helpers/canned.js';
import { sendJson, writeSlowly, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY, type TestGateway } from '../helpers/start-gateway.js';
import { artifact, DOCS_SCREENSHOT, HAS_CHROMIUM, newPage, suiteName, type TestPage, startInspected, type InspectedGateway } from './browser.js';

const CODEX = JSON.parse(readFileSync(new URL('../fixtures/clients/codex-0.169.0-responses-first-turn.json', import.meta.url), 'utf8')) as {
  headers: Record<string, string>;
  body: Record<string, unknown>;
};

describe.skipIf(!HAS_CHROMIUM)(suiteName('the inspector detail and sessions in a browser'), () => {
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

  async function signedIn(): Promise<TestPage> {
    const t = await newPage(browser);
    await t.page.goto(inspector.link(gw.url));
    await t.page.locator('.conn-live').waitFor();
    return t;
  }

  /** The recorded Codex turn, as Codex sends it, to a model served by a Messages provider. */
  function codexTurn() {
    const headers = Object.fromEntries(Object.entries(CODEX.headers).filter(([k]) => !['host', 'content-length', 'authorization'].includes(k.toLowerCase())));
    return call(`${gw.url}/v1/responses`, {
      headers: { ...headers, authorization: `Bearer ${GATEWAY_KEY}` },
      body: JSON.stringify({ ...CODEX.body, model: 'claude-test', stream: true }),
    });
  }

  /** Anthropic's events one by one, so each arrives at its own time. */
  const slowMessages = async (_req: unknown, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    await writeSlowly(res, messageFrames('claude-upstream'), 25);
    res.end();
  };

  it('shows a translated call: both bodies, what translation changed, and the upstream stream as a timeline', async () => {
    const { page, context, errors } = await signedIn();
    upstream.once(slowMessages);
    const res = await codexTurn();
    expect(res.status).toBe(200);
    const row = page.locator('tr.row:not(.pending)', { hasText: 'Codex 0.169.0 (exec)' });
    await row.waitFor();
    expect(await row.locator('.col-route').textContent()).toMatch(/^responses→messages/);
    await row.click();
    // The conversation first: Codex's turn as Codex sent it, and the answer it got, assembled from the stream.
    const conversation = page.locator('.part-conversation');
    await conversation.waitFor();
    expect(page.url()).toMatch(/#\/x\/req_/);
    expect(await conversation.locator('.msg-system').count()).toBeGreaterThan(0);
    expect(await conversation.locator('.msg-user').count()).toBeGreaterThan(0);
    await expect(conversation.locator('.msg-answer .msg-role').textContent()).resolves.toMatch(/streamed, \d+ events assembled/);
    await expect(conversation.locator('.msg-answer .msg-body').textContent()).resolves.toContain(CANNED_TEXT);
    expect(await page.locator('.part-translation').isHidden()).toBe(true);
    await page.screenshot({ path: artifact('conversation-translated.png'), fullPage: true });
    // The raw bodies and events, one click away.
    await page.click('button[data-view="raw"]');
    await page.locator('.part-translation').waitFor();
    expect(await conversation.isHidden()).toBe(true);

    // Both requests, side by side: Codex's `input` and tools on the left, Anthropic's `messages` on the right.
    const client = page.locator('.part-client-request');
    const upstreamReq = page.locator('.part-upstream-request');
    await expect(client.locator('[data-path="input"] > summary').textContent()).resolves.toMatch(/"input"/);
    await expect(client.locator('[data-path="prompt_cache_key"]').textContent()).resolves.toContain('01900000-0000-7000-8000-000000000003');
    await expect(upstreamReq.locator('[data-path="messages"] > summary').textContent()).resolves.toMatch(/"messages"/);
    await expect(upstreamReq.locator('[data-path="model"]').textContent()).resolves.toContain('claude-upstream');

    // What translation changed, listed and marked on the trees.
    const translation = page.locator('.part-translation');
    expect(await translation.locator('h3').textContent()).toBe('Translation responses → messages');
    const tools = await translation.locator('[data-group="tools"]').textContent();
    expect(tools).toContain('flattened multi_agent_v1.spawn_agent → multi_agent_v1__spawn_agent');
    expect(tools).toMatch(/dropped web_search \(hosted\)/);
    expect(await translation.locator('[data-group="warnings"] li').count()).toBeGreaterThan(0);
    expect(await translation.locator('[data-group="removed"] li').count()).toBeGreaterThan(0);
    expect(await translation.locator('[data-group="added"] li').count()).toBeGreaterThan(0);
    expect(await translation.locator('[data-group="moved"]').textContent()).toMatch(/→/);
    expect(await client.locator('.mark-removed').count()).toBeGreaterThan(0);
    expect(await upstreamReq.locator('.mark-added').count()).toBeGreaterThan(0);
    // Collapsed nodes with changes inside carry a dot.
    expect(await client.locator('details.has-marks').count()).toBeGreaterThan(0);

    // The upstream stream, event by event with arrival times, and what Codex received.
    const upstreamEvents = page.locator('.part-upstream-response tr.event');
    expect(await upstreamEvents.count()).toBe(messageFrames('m').length);
    expect(await upstreamEvents.first().getAttribute('data-event')).toBe('message_start');
    const times = (await page.locator('.part-upstream-response tr.event td:first-child').allTextContents()).map(Number);
    expect(times.at(-1)!).toBeGreaterThan(times[0]!);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const clientEvents = page.locator('.part-client-response tr.event');
    expect(await clientEvents.first().getAttribute('data-event')).toBe('response.created');
    expect(await page.locator('.part-client-response tr.event[data-event="response.output_text.delta"]').count()).toBe(3);
    await upstreamEvents.nth(3).click();
    await expect(page.locator('.part-upstream-response tr.event-detail:not([hidden]) .tree').textContent()).resolves.toMatch(/text_delta/);

    // Time to first token is shown in the facts, and how the request came.
    const facts = await page.locator('.facts').textContent();
    expect(facts).toMatch(/First byte \/ token\d+ms \/ \d+ms/);
    expect(facts).toContain('TransportHTTP');

    await page.screenshot({ path: artifact('detail.png'), fullPage: true });
    if (DOCS_SCREENSHOT) {
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: DOCS_SCREENSHOT });
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it('says a request came as a WebSocket message', async () => {
    const { page, context, errors } = await signedIn();
    const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const completed = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        if ((JSON.parse(data.toString()) as { type: string }).type === 'response.completed') resolve();
      }),
    );
    ws.send(JSON.stringify({ type: 'response.create', model: 'gpt-test', input: 'over a socket' }));
    await completed;
    ws.close();
    await page.locator('tr.row:not(.pending)', { hasText: 'gpt-test' }).first().click();
    await page.locator('.facts').waitFor();
    expect(await page.locator('.facts').textContent()).toContain('TransportWebSocket');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('copies the client request as curl with the key left as $MODEL_GATEWAY_KEY', async () => {
    const { page, context, errors } = await signedIn();
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await codexTurn();
    await page.locator('tr.row:not(.pending)', { hasText: 'Codex' }).first().click();
    await page.click('button.copy-curl');
    const command = await page.locator('pre.curl').textContent();
    expect(command).toMatch(/^printf '%s' '\{.*\}' \|$/m);
    expect(command).toMatch(/^ {2}curl -sS (-N )?-X POST http:\/\/127\.0\.0\.1:\d+\/v1\/responses \\$/m);
    expect(command).toContain('-H "authorization: Bearer $MODEL_GATEWAY_KEY"');
    expect(command).toContain("-H 'originator: codex_exec'");
    expect(command).not.toContain(GATEWAY_KEY);
    await expect.poll(() => page.locator('.curl-out p').textContent()).toMatch(/^Copied/);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keeps a large body responsive: collapsed, long strings cut, long arrays paged', async () => {
    const { page, context, errors } = await signedIn();
    const messages = Array.from({ length: 450 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i}` }));
    messages.push({ role: 'user', content: 'x'.repeat(200_000) });
    const res = await call(`${gw.url}/v1/messages`, {
      headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 10, messages }),
    });
    expect(res.status).toBe(200);
    await page.locator('tr.row:not(.pending)', { hasText: 'claude-test' }).first().click();
    await page.click('button[data-view="raw"]');
    const tree = page.locator('.part-client-request .tree');
    const list = tree.locator('details[data-path="messages"]');
    await list.waitFor();
    // Collapsed, and not built until opened.
    expect(await list.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await list.locator('.j-node').count()).toBe(0);
    // The children are built on the details' toggle event, after the click returns: wait for them, then count.
    const children = list.locator('> .j-children > .j-node');
    await list.locator('> summary').click();
    await children.nth(99).waitFor();
    expect(await children.count()).toBe(100);
    await list.locator('> .j-children > button.more').click();
    await children.nth(199).waitFor();
    expect(await children.count()).toBe(200);
    const last = list.locator('details[data-path="messages[450]"]');
    expect(await last.count()).toBe(0);
    for (let i = 0; i < 3; i++) await list.locator('> .j-children > button.more').click();
    await last.locator('> summary').click();
    const content = last.locator('[data-path="messages[450].content"]');
    expect(await content.locator('button.more').textContent()).toMatch(/show more \(199,\d+ chars\)/);
    expect((await content.textContent())!.length).toBeLessThan(1000);
    // Each click shows 50 times the cut more.
    const left = async () => Number((await content.locator('button.more').textContent())!.replace(/\D/g, ''));
    const before = await left();
    await content.locator('button.more').click();
    expect(before - (await left())).toBe(15_000);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows a session's prompt-cache hit rate and the request where caching broke", async () => {
    const { page, context, errors } = await signedIn();
    const session = 'cc-session-cache-1';
    // Anthropic usage: `input_tokens` excludes the cache reads and writes.
    const turns = [
      { input_tokens: 100, cache_creation_input_tokens: 5000, cache_read_input_tokens: 0 },
      { input_tokens: 50, cache_creation_input_tokens: 200, cache_read_input_tokens: 5000 },
      // The prompt's prefix changed: nothing read, everything written again.
      { input_tokens: 30, cache_creation_input_tokens: 5400, cache_read_input_tokens: 0 },
    ];
    for (const usage of turns) {
      upstream.once((_req, res) => sendJson(res, 200, { ...messageJson('claude-upstream'), usage: { ...usage, output_tokens: 7 } }));
      const res = await call(`${gw.url}/v1/messages`, {
        headers: {
          'x-api-key': GATEWAY_KEY,
          'anthropic-version': '2023-06-01',
          'content-type': 'application/json',
          'user-agent': 'claude-cli/2.1.330 (external, cli)',
          'x-claude-code-session-id': session,
        },
        body: JSON.stringify({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] }),
      });
      expect(res.status).toBe(200);
    }
    await page.click('a[data-tab="sessions"]');
    const row = page.locator(`tr.session[data-session="${session}"]`);
    await expect.poll(async () => (await row.locator('td').nth(2).textContent()) ?? '').toBe('3');
    const cells = await row.locator('td').allTextContents();
    // Input 5100 + 5250 + 5430 = 15780; read 5000: 32 %.
    expect(cells.slice(1, 12)).toEqual([
      'Claude Code 2.1.330',
      '3',
      expect.stringMatching(/^\d\d:\d\d:\d\d$/),
      '15.8k',
      '21',
      '5000',
      '10.6k',
      '180',
      '32% ⚠1',
      expect.stringMatching(/^\d+ms$/),
      // The test's model has no price: the session says so rather than a cost of zero.
      'no price',
    ]);
    expect(await row.locator('.bar').count()).toBe(3);
    expect(await row.locator('.bar.break').count()).toBe(1);
    expect(await row.locator('.bar').nth(2).getAttribute('class')).toContain('break');
    await page.screenshot({ path: artifact('sessions.png') });

    // The session's id leads to its exchanges.
    await row.locator('td a').first().click();
    await expect.poll(() => page.locator('tr.row').count()).toBe(3);
    expect(await page.inputValue('.filter-text')).toBe(session);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("groups Claude Code's subagents under their session", async () => {
    const { page, context, errors } = await signedIn();
    const session = 'cc-session-agents-1';
    const agents: Record<string, string>[] = [{}, { 'x-claude-code-agent-id': 'explore-7', 'x-claude-code-parent-agent-id': 'main-1' }, {}];
    for (const agent of agents) {
      const res = await call(`${gw.url}/v1/messages`, {
        headers: {
          'x-api-key': GATEWAY_KEY,
          'anthropic-version': '2023-06-01',
          'content-type': 'application/json',
          'user-agent': 'claude-cli/2.1.330 (external, cli)',
          'x-claude-code-session-id': session,
          ...agent,
        },
        body: JSON.stringify({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] }),
      });
      expect(res.status).toBe(200);
    }
    await page.click('a[data-tab="sessions"]');
    const row = page.locator(`tr.session[data-session="${session}"]`);
    await expect.poll(async () => (await row.locator('td').nth(2).textContent()) ?? '').toBe('3');
    expect(await row.locator('td').nth(1).textContent()).toBe('Claude Code 2.1.330 · 1 subagent');
    expect(await row.locator('td').nth(1).locator('span').getAttribute('title')).toBe('explore-7 (from main-1): 1 request(s)');
    expect(await row.locator('.bar').count()).toBe(3);
    expect(await row.locator('.bar.subagent').count()).toBe(1);
    expect(await row.locator('.bar').nth(1).getAttribute('title')).toContain('subagent explore-7');

    // The subagent's exchange says whose it is.
    await row.locator('.bar').nth(1).click();
    await expect.poll(async () => (await page.locator('body').textContent()) ?? '').toContain('subagent explore-7, started by main-1');
    expect(errors).toEqual([]);
    await context.close();
  });
});
