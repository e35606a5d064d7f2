/**
 * Rows from before a restart in the page: read from a usage ledger's tail as `serve` reads it at start,
 * shown under this run's rows, marked, and opened to a detail that says why it has no bodies.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerFacts, readLedgerTail } from '#src/inspector/from-ledger.js';
import type { Inspector } from '#src/inspector/inspector.js';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY, type TestGateway } from '../helpers/start-gateway.js';
import { artifact, HAS_CHROMIUM, newPage, suiteName, startInspected, type InspectedGateway } from './browser.js';

describe.skipIf(!HAS_CHROMIUM)(suiteName('the inspector: rows from before a restart'), () => {
  let env: InspectedGateway;
  let browser: Browser;
  let gw: TestGateway;
  let inspector: Inspector;
  const dir = mkdtempSync(join(tmpdir(), 'mgw-restart-page-'));

  beforeAll(async () => {
    env = await startInspected();
    ({ browser, gw, inspector } = env);
    const line = (model: string, usd: number) =>
      `${JSON.stringify({ v: 1, time: new Date(Date.now() - 3_600_000).toISOString(), group: 'dev', key: 'alice', keyId: 'abcd1234', model, provider: 'openai', upstreamModel: 'gpt-upstream', status: 200, input: 1200, output: 34, cacheRead: 0, cacheWrite: 0, usd, priced: 'catalogue' })}\n`;
    writeFileSync(join(dir, '2026-11.jsonl'), `${line('ledgered-one', 0.0012)}not a ledger line\n${line('ledgered-two', 0.0034)}`);
    const { entries } = await readLedgerTail(dir, 300);
    inspector.addRestored(entries.map((e, i) => ledgerFacts(e, i)));
    const res = await call(`${gw.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'after the restart' }] }),
    });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists them under this run, marked, and their detail says the ledger keeps no bodies', async () => {
    const t = await newPage(browser);
    await t.page.goto(inspector.link(gw.url));
    const rows = t.page.locator('tr.row');
    await rows.filter({ hasText: 'after the restart' }).waitFor();
    const restored = t.page.locator('tr.row.restored');
    await restored.first().waitFor();
    expect(await restored.count()).toBe(2);
    expect(await rows.first().textContent()).toContain('after the restart');
    expect(await restored.first().textContent()).toContain('ledgered-two');
    expect(await restored.first().locator('.col-client').textContent()).toBe('↺ before restart');
    await t.page.screenshot({ path: artifact('restored-rows.png') });
    await restored.first().locator('td.col-time a').click();
    await t.page.getByText('From before the gateway restarted').waitFor();
    expect(t.errors).toEqual([]);
    await t.context.close();
  });
});
