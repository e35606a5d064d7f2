/**
 * Per-session budgets across a restart with the session ids callers can really send: a header's tab,
 * C1 bytes, quotes, backslashes, UTF-8 read as Latin-1, an id past the gateway's cap. Each session's
 * spend before the restart is the spend restored from the ledger, under the id its next request
 * carries; and where the ids are shown (the usage report, the inspector's rows from before the
 * restart) they show as the log line shows them, nothing raw that drives a terminal.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetDecision } from '#src/budgets/budget-store.js';
import { createMemoryBudgetStore } from '#src/budgets/memory-store.js';
import { allLines, sessionCounter } from '#src/budgets/plan.js';
import { run } from '#src/cli/main.js';
import { parseConfig } from '#src/config/parse.js';
import type { WrittenConfig } from '#src/config/schema.js';
import { ledgerFacts, readLedgerTail } from '#src/inspector/from-ledger.js';
import type { RequestRecord } from '#src/log/record.js';
import { printable, safeToPrint } from '#src/log/terminal-text.js';
import { CLIENT_ID_LIMIT } from '#src/pipeline/events.js';
import { messageJson } from '../helpers/canned.js';
import { type FakeUpstream, sendJson, startFakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, startGateway, testConfig, type TestGateway, withoutRetries } from '../helpers/start-gateway.js';
import { waitFor } from '../helpers/wait-for.js';

const PRICE = { input: 3, output: 15 };
const USAGE = { input_tokens: 10, output_tokens: 100 };
/** What each request costs at PRICE: $0.00153. */
const COST = (USAGE.input_tokens * PRICE.input + USAGE.output_tokens * PRICE.output) / 1e6;
/** Two requests fit, a third starts (two spent is under it) and a fourth does not. */
const BUDGET = 2.5 * COST;

/** Ids as a client sets them on its requests (what fetch lets through: Latin-1, no CR, LF or NUL). */
const IDS: [string, string][] = [
  ['a tab inside', 'tab\there'],
  ['C1 controls (a one-byte CSI)', 'c1\u0085\u009b31m'],
  ['quotes and backslashes', 'back\\slash "quoted" \\x1b'],
  ['Latin-1', 'caf\u00e9'],
  ['a bidi override sent as UTF-8', Buffer.from('user\u202egnp.exe', 'utf8').toString('latin1')],
  ['C1 past the cap (cut, then escaped to four times its length)', '\u009b'.repeat(CLIENT_ID_LIMIT + 50)],
];

let upstream: FakeUpstream;
const dirs: string[] = [];
beforeAll(async () => {
  upstream = await startFakeUpstream();
  upstream.always((_req, res: ServerResponse) => sendJson(res, 200, { ...messageJson('claude-upstream'), usage: USAGE }));
});
afterAll(async () => {
  await upstream.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function budgetConfig(data: string): WrittenConfig {
  const base = withoutRetries(testConfig(upstream.url));
  return {
    ...base,
    server: { timeZone: 'UTC', dataDir: data },
    models: { ...base.models, 'claude-test': { provider: 'anthropic', upstreamModel: 'claude-upstream', price: PRICE } },
    keyGroups: { dev: { keys: [GATEWAY_KEY], budget: { usd: BUDGET, per: 'session' } } },
  } as WrittenConfig;
}

/** One request in `session` through the Anthropic SDK, as Claude Code names its session: its status. */
async function inSession(gw: TestGateway, session: string): Promise<{ status: number; message?: string }> {
  const sdk = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0, defaultHeaders: { 'x-claude-code-session-id': session } });
  try {
    await sdk.messages.create({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    return { status: 200 };
  } catch (err) {
    if (!(err instanceof Anthropic.APIError) || err.status === undefined) throw err;
    return { status: err.status, message: err.message };
  }
}

/** A gateway on the ledger in `data`, with a budget store the test can read, and the records of its requests. */
async function gatewayOn(data: string) {
  const records: RequestRecord[] = [];
  const store = createMemoryBudgetStore();
  const config = budgetConfig(data);
  const gw = await startGateway(config, { ledgerDir: join(data, 'usage'), budgetStore: store, observers: [{ requestEnded: (r) => records.push(r) }] });
  const line = allLines(parseConfig(config, { env: {} }))[0]!;
  /** What the store holds as spent for the session a request carrying `id` is counted in. */
  const spentIn = (id: string): number => {
    const now = Date.now();
    const d = store.reserve([{ ...sessionCounter(line, id, now), usd: 0 }], 0, now) as BudgetDecision;
    if (d.ok) throw new Error('a budget of 0 is always spent');
    return d.spent;
  };
  return { gw, records, spentIn };
}

describe('per-session budgets across a restart, with hostile session ids', () => {
  it('restores each session exactly as its requests carry it, and shows the ids escaped once', async () => {
    const data = mkdtempSync(join(tmpdir(), 'mgw-session-ids-'));
    dirs.push(data);
    mkdirSync(data, { recursive: true });

    const first = await gatewayOn(data);
    const before = new Map<string, { id: string; usd: number }>();
    try {
      for (const [, raw] of IDS) for (let i = 0; i < 2; i++) expect(await inSession(first.gw, raw)).toEqual({ status: 200 });
      await waitFor(() => first.records.length === IDS.length * 2, 'every request to end');
      for (const [name, raw] of IDS) {
        const records = first.records.filter((r) => r.sessionId === printable(raw.slice(0, CLIENT_ID_LIMIT)));
        expect(records, name).toHaveLength(2);
        before.set(raw, { id: records[0]!.sessionId!, usd: records.reduce((n, r) => n + (r.cost?.usd ?? 0), 0) });
        expect(before.get(raw)!.usd).toBeCloseTo(2 * COST, 12);
      }
    } finally {
      await first.gw.close();
    }

    const second = await gatewayOn(data);
    try {
      for (const [name, raw] of IDS) {
        const { id, usd } = before.get(raw)!;
        // Restored under the id the session's next request carries, to the last fraction of a cent.
        expect(second.spentIn(id), name).toBeCloseTo(usd, 12);
        // So the session goes on from there: one more starts, the one after is refused, naming the session escaped.
        expect(await inSession(second.gw, raw), name).toEqual({ status: 200 });
        const refused = await inSession(second.gw, raw);
        expect(refused.status, name).toBe(429);
        expect(refused.message).toContain('per session in this session');
        expect(safeToPrint(refused.message!)).toBe(true);
      }
      await waitFor(() => second.records.length === IDS.length * 2, 'every request to end');
      for (const [, raw] of IDS) expect(second.records.filter((r) => r.sessionId === before.get(raw)!.id)).toHaveLength(2);
    } finally {
      await second.gw.close();
    }

    const ids = IDS.map(([, raw]) => before.get(raw)!.id);
    // The usage report by session: a row per session, named as the log line names it, with its three requests.
    writeFileSync(join(data, 'gateway.config.json'), JSON.stringify(budgetConfig(data)));
    let out = '';
    const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (out += s) }, env: {}, cwd: data, stopSignal: () => new Promise<string>(() => {}) };
    expect(await run(['usage', '--by', 'session', '--json', '--since', '1d'], io)).toBe(0);
    const report = JSON.parse(out) as { rows: { name: string; requests: number; usd: number }[] };
    expect(report.rows.map((r) => r.name).sort()).toEqual([...ids].sort());
    for (const r of report.rows) expect(r.usd).toBeCloseTo(3 * COST, 12);
    out = '';
    expect(await run(['usage', '--by', 'session', '--no-color', '--since', '1d'], io)).toBe(0);
    expect(out.split('\n').filter((l) => !safeToPrint(l))).toEqual([]);
    for (const id of ids) expect(out).toContain(id);

    // The inspector's rows from before a restart, as `serve` makes them: the same ids as this run's rows.
    const { entries } = await readLedgerTail(join(data, 'usage'), 100);
    const shown = entries.map((e, n) => ledgerFacts(e, n).sessionId);
    expect(new Set(shown)).toEqual(new Set(ids));
    for (const s of shown) expect(safeToPrint(s!)).toBe(true);
  });
});
