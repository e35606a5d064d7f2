/**
 * Cost and budgets end to end, through the official SDKs, against fake upstreams reporting usage
 * with cache reads and writes as each real API writes it: the cost each protocol's requests come to
 * (in the record, the log line and the ledger), a budget's refusal in each caller's shape naming the
 * budget and when it resets, concurrent requests against one budget, and spend surviving a restart.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '#src/cli/main.js';
import { parseConfig } from '#src/config/parse.js';
import type { WrittenConfig } from '#src/config/schema.js';
import { formatUsd } from '#src/log/format.js';
import { createMetrics } from '#src/metrics/metrics.js';
import type { RequestRecord } from '#src/log/record.js';
import type { Protocol } from '#src/protocols/types.js';
import { type CacheUsageFamily, families, streamedAnswer, wholeAnswer } from '../helpers/cache-usage-families.js';
import { GEMINI_API_KEY } from '../helpers/fake-gemini.js';
import { type FakeUpstream, sendJson, startFakeUpstream } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import { PROVIDER_ANTHROPIC_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';

const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
/** One family per protocol, with cache writes where the API reports them. */
const FAMILY: Record<Protocol, CacheUsageFamily> = {
  messages: families.find((f) => f.name === 'Anthropic')!,
  chat: families.find((f) => f.name === 'OpenRouter')!,
  responses: families.find((f) => f.name === 'OpenAI Responses')!,
  gemini: families.find((f) => f.name === 'Gemini')!,
};
const PROTOCOL_LIST = Object.keys(FAMILY) as Protocol[];

/** The family's usage at the config's price, worked out here from the counts as the API states them. */
function expectedUsd(f: CacheUsageFamily): number {
  const { input, output, cacheRead, cacheWrite } = f.expected;
  return ((input - cacheRead - cacheWrite) * PRICE.input + cacheRead * PRICE.cacheRead + cacheWrite * PRICE.cacheWrite + output * PRICE.output) / 1e6;
}

/** Answers as the family's upstream would, whole or streamed, holding the answer until `gate` opens. */
function answering(gate?: Promise<void>) {
  return async (req: Received, res: Parameters<typeof sendJson>[0]) => {
    const family = familyOf(req);
    if (gate) await gate;
    const stream = req.url.includes('streamGenerateContent') || (req.json as { stream?: boolean } | undefined)?.stream === true;
    if (!stream) return sendJson(res, 200, wholeAnswer(family));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(streamedAnswer(family));
  };
}

function familyOf(req: Received): CacheUsageFamily {
  if (req.url.includes('/v1/messages')) return FAMILY.messages;
  if (req.url.includes('/chat/completions')) return FAMILY.chat;
  if (req.url.includes('/responses')) return FAMILY.responses;
  return FAMILY.gemini;
}

const KEYS: Record<Protocol, string> = { messages: 'key-messages-0123456789', chat: 'key-chat-0123456789', responses: 'key-responses-0123456789', gemini: 'key-gemini-0123456789' };
const MODEL: Record<Protocol, string> = { messages: 'm-messages', chat: 'm-chat', responses: 'm-responses', gemini: 'm-gemini' };

function config(upstream: FakeUpstream, groups: WrittenConfig['keyGroups'], server: WrittenConfig['server'] = {}): WrittenConfig {
  return {
    server: { timeZone: 'Europe/Paris', ...server },
    providers: {
      anthropic: { type: 'anthropic', baseUrl: upstream.url, apiKey: PROVIDER_ANTHROPIC_KEY, retries: 0 },
      openai: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-openai-provider-key-0000', retries: 0 },
      google: { type: 'gemini', baseUrl: `${upstream.url}/v1beta`, apiKey: GEMINI_API_KEY, retries: 0 },
    },
    models: {
      'm-messages': { provider: 'anthropic', upstreamModel: 'upstream-model', price: PRICE },
      'm-chat': { provider: 'openai', upstreamModel: 'upstream-model', protocols: ['chat'], price: PRICE },
      'm-responses': { provider: 'openai', upstreamModel: 'upstream-model', protocols: ['responses'], price: PRICE },
      'm-gemini': { provider: 'google', upstreamModel: 'upstream-model', price: PRICE },
      // Priced by the catalogue, which prices Claude's one-hour cache writes apart.
      'haiku-catalogue': { provider: 'anthropic', upstreamModel: 'claude-3-5-haiku-20241022' },
      'no-price': { provider: 'anthropic', upstreamModel: 'upstream-model' },
    },
    keyGroups: groups,
  } as WrittenConfig;
}

/** One request of `protocol` through its SDK; resolves with nothing once the answer has been read whole. */
async function ask(gw: TestGateway, protocol: Protocol, key: string, opts: { stream?: boolean; model?: string; maxTokens?: number } = {}): Promise<void> {
  const model = opts.model ?? MODEL[protocol];
  const stream = opts.stream ?? false;
  switch (protocol) {
    case 'messages': {
      const sdk = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
      const body = { model, max_tokens: opts.maxTokens ?? 100, messages: [{ role: 'user' as const, content: 'hi' }] };
      if (stream) await sdk.messages.stream(body).finalMessage();
      else await sdk.messages.create(body);
      return;
    }
    case 'chat': {
      const sdk = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
      const messages = [{ role: 'user' as const, content: 'hi' }];
      if (!stream) await sdk.chat.completions.create({ model, messages });
      else for await (const _ of await sdk.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } }));
      return;
    }
    case 'responses': {
      const sdk = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
      if (!stream) await sdk.responses.create({ model, input: 'hi' });
      else for await (const _ of await sdk.responses.create({ model, input: 'hi', stream: true }));
      return;
    }
    case 'gemini': {
      const sdk = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
      if (!stream) await sdk.models.generateContent({ model, contents: 'hi' });
      else for await (const _ of await sdk.models.generateContentStream({ model, contents: 'hi' }));
      return;
    }
  }
}

/** The status and message an SDK's error carries. */
function refusal(err: unknown): { status: number | undefined; message: string } {
  const e = err as { status?: number; code?: number; message?: string };
  return { status: e.status ?? e.code, message: String(e.message) };
}

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
  upstream.always(answering());
});
afterAll(() => upstream.close());

describe('the cost of each protocol’s requests', () => {
  let gw: TestGateway;
  const records: RequestRecord[] = [];
  const ledgerDir = mkdtempSync(join(tmpdir(), 'mgw-cost-'));
  beforeAll(async () => {
    const groups = { dev: { keys: Object.values(KEYS) } };
    gw = await startGateway(config(upstream, groups), { ledgerDir, observers: [{ requestEnded: (r) => records.push(r) }] });
  });
  afterAll(() => gw.close());

  for (const protocol of PROTOCOL_LIST) {
    for (const stream of [false, true]) {
      it(`${protocol}, ${stream ? 'streamed' : 'whole'}: the cost of its usage at the model's price, cache reads and writes included`, async () => {
        records.length = 0;
        await ask(gw, protocol, KEYS[protocol], { stream });
        await waitFor(() => records.length === 1);
        const record = records[0]!;
        expect(record.cost?.source).toBe('config');
        expect(record.cost?.usd).toBeCloseTo(expectedUsd(FAMILY[protocol]), 12);
        expect(gw.lines().at(-1)).toContain(formatUsd(record.cost!.usd!));
      });
    }
  }

  it('a Claude model priced by the catalogue pays its one-hour cache writes at their own rate', async () => {
    records.length = 0;
    await ask(gw, 'messages', KEYS.messages, { model: 'haiku-catalogue' });
    await waitFor(() => records.length === 1);
    // The catalogue's Haiku 3.5: $0.80 in, $4 out, $0.08 cache read, $1 five-minute write, $1.60 one-hour write.
    expect(records[0]!.cost).toEqual({ source: 'catalogue', usd: expect.closeTo((50 * 0.8 + 10_000 * 0.08 + 1000 * 1 + 2000 * 1.6 + 25 * 4) / 1e6, 12) });
  });

  it('a model with no known price says so instead of costing zero', async () => {
    records.length = 0;
    await ask(gw, 'messages', KEYS.messages, { model: 'no-price' });
    await waitFor(() => records.length === 1);
    expect(records[0]!.cost).toEqual({ usd: null, source: 'unpriced' });
    expect(gw.lines().at(-1)).toContain('no price');
  });

  it('the ledger holds a line per request, with its tokens and cost, and never a key or a body', async () => {
    await gw.gateway.close(1000);
    const text = readdirSync(ledgerDir).map((f) => readFileSync(join(ledgerDir, f), 'utf8')).join('');
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(PROTOCOL_LIST.length * 2 + 2);
    expect(lines[0]).toMatchObject({ group: 'dev', model: 'm-messages', provider: 'anthropic', input: 13_050, cacheRead: 10_000, cacheWrite: 3000 });
    expect(lines.at(-1)).toMatchObject({ model: 'no-price', usd: null, priced: 'unpriced' });
    for (const secret of [...Object.values(KEYS), PROVIDER_ANTHROPIC_KEY, 'hi"']) expect(text).not.toContain(secret);
  });
});

describe('where prices show', () => {
  it("the OpenAI-shaped models list carries each priced model's rates as OpenRouter lists them, and the SDK reads the list", async () => {
    const gw = await startGateway(config(upstream, { dev: { keys: [KEYS.chat] } }));
    try {
      const list = await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEYS.chat, maxRetries: 0 }).models.list();
      const byId = new Map(list.data.map((m) => [m.id, m as unknown as { pricing?: Record<string, string> }]));
      expect(byId.get('m-chat')?.pricing).toEqual({ prompt: '0.000003', completion: '0.000015', input_cache_read: '0.0000003', input_cache_write: '0.00000375' });
      expect(byId.get('haiku-catalogue')?.pricing?.prompt).toBe('0.0000008');
      expect(byId.get('no-price')?.pricing).toBeUndefined();
    } finally {
      await gw.close();
    }
  });

  it('check prints the price each model is charged at and where it comes from', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-check-'));
    writeFileSync(join(dir, 'gateway.config.json'), JSON.stringify(config(upstream, { dev: { keys: [KEYS.chat], budget: { usd: 5, per: 'day' } } })));
    let out = '';
    const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: () => true }, env: {}, cwd: dir, stopSignal: () => new Promise<string>(() => {}) };
    expect(await run(['check', '--no-color'], io)).toBe(0);
    expect(out).toMatch(/^\s*m-messages\s+\$3 \/ \$15\s+\$0\.3 \/ \$3\.75\s+config\s*$/m);
    expect(out).toMatch(/^\s*haiku-catalogue\s+\$0\.8 \/ \$4\s+\$0\.08 \/ \$1 \(1 h: \$1\.6\)\s+catalogue: anthropic\/claude-3-5-haiku\S*\s*$/m);
    expect(out).toMatch(/^\s*no-price\s+—\s+—\s+no price\s*$/m);
    expect(out).toContain('models.no-price: no price known, so its requests count nothing against budgets');
  });
});

describe('budgets', () => {
  // Every family's request costs more than this, so the first is admitted and the second refused.
  const TINY = 0.001;

  for (const protocol of PROTOCOL_LIST) {
    it(`${protocol}: past the key group's budget, a 429 in the caller's shape naming the budget and when it resets`, async () => {
      expect(expectedUsd(FAMILY[protocol])).toBeGreaterThan(TINY);
      const gw = await startGateway(config(upstream, { team: { keys: [KEYS[protocol]], budget: { usd: TINY, per: 'day' } } }));
      try {
        await ask(gw, protocol, KEYS[protocol]);
        const refused = await ask(gw, protocol, KEYS[protocol]).then(
          () => undefined,
          (err: unknown) => refusal(err),
        );
        expect(refused?.status).toBe(429);
        expect(refused?.message).toContain("Key group 'team' has spent its budget of $0.001 per day");
        expect(refused?.message).toMatch(/resets at \d{4}-\d\d-\d\d 00:00 Europe\/Paris, in \d+h \d+m|resets at \d{4}-\d\d-\d\d 00:00 Europe\/Paris, in \d+m/);
      } finally {
        await gw.close();
      }
    });
  }

  it('a refusal by budget is counted in the metrics, by key group', async () => {
    let gw: TestGateway | undefined;
    const metrics = createMetrics(
      { port: 0, host: '127.0.0.1', token: undefined, labels: ['keyGroup'] },
      { config: () => gw!.gateway.state.config, providers: () => gw!.gateway.state.providers.values(), allowedHosts: [] },
    );
    gw = await startGateway(config(upstream, { team: { keys: [KEYS.chat], budget: { usd: TINY, per: 'day' } } }), { observers: [metrics.observer], metrics: metrics.hooks });
    try {
      await ask(gw, 'chat', KEYS.chat);
      await expect(ask(gw, 'chat', KEYS.chat)).rejects.toBeDefined();
      const { text } = await metrics.scrape();
      expect(text).toContain('model_gateway_budget_refusals_total{key_group="team"} 1');
    } finally {
      await gw.close();
      await metrics.close();
    }
  });

  it("a key's own budget refuses that key only; the 429 carries retry-after up to the period's end", async () => {
    const gw = await startGateway(
      config(upstream, { team: { keys: [{ name: 'alice', key: KEYS.messages, budget: [{ usd: TINY, per: 'month' }, { usd: 100, per: 'day' }] }, KEYS.chat] } }),
    );
    try {
      await ask(gw, 'messages', KEYS.messages);
      const res = await fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': KEYS.messages, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm-messages', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(429);
      const body = (await res.json()) as { type: string; error: { type: string; message: string } };
      expect(body.type).toBe('error');
      expect(body.error.type).toBe('rate_limit_error');
      expect(body.error.message).toContain("Key 'alice' has spent its budget of $0.001 per month");
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(31 * 86_400 + 3600);
      // The group's other key has no budget of its own.
      await ask(gw, 'chat', KEYS.chat);
    } finally {
      await gw.close();
    }
  });

  it('concurrent requests reserve their largest cost: only as many start as the budget covers, however many arrive at once', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // Each asks for up to 1000 output tokens at $15 per million: a reservation of a little over $0.015.
    // $0.0375 covers two and starts a third; the fourth would start at more than $0.045.
    const gw = await startGateway(config(upstream, { team: { keys: [KEYS.messages], budget: { usd: 0.0375, per: 'week' } } }));
    try {
      upstream.reset();
      upstream.always(answering(gate));
      const outcomes: ({ ok: true } | { ok: false; status: number | undefined })[] = [];
      const all = Array.from({ length: 8 }, () =>
        ask(gw, 'messages', KEYS.messages, { maxTokens: 1000 }).then(
          () => outcomes.push({ ok: true }),
          (err: unknown) => outcomes.push({ ok: false, status: refusal(err).status }),
        ),
      );
      // Three reach the upstream and wait there; the other five are refused meanwhile.
      await waitFor(() => upstream.received.length === 3 && outcomes.length === 5);
      expect(outcomes.every((o) => !o.ok && o.status === 429)).toBe(true);
      open();
      await Promise.all(all);
      expect(outcomes.filter((o) => o.ok)).toHaveLength(3);
      // Settled at what they cost ($0.0148 each): past the budget now, even for a small request.
      const after = await ask(gw, 'messages', KEYS.messages, { maxTokens: 1 }).then(() => undefined, refusal);
      expect(after?.status).toBe(429);
    } finally {
      upstream.always(answering());
      await gw.close();
    }
  });

  it('a budget a reload adds starts from what the ledger holds of its period', async () => {
    const ledgerDir = mkdtempSync(join(tmpdir(), 'mgw-reload-'));
    const gw = await startGateway(config(upstream, { team: { keys: [KEYS.messages] } }), { ledgerDir });
    try {
      await ask(gw, 'messages', KEYS.messages);
      await ask(gw, 'messages', KEYS.messages);
      // $0.0296 spent before the budget existed; a budget of $0.02 a day is already spent once it does.
      const replaced = gw.gateway.reload(parseConfig(config(upstream, { team: { keys: [KEYS.messages], budget: { usd: 0.02, per: 'day' } } }), { env: {} }));
      await replaced.restored;
      const refused = await ask(gw, 'messages', KEYS.messages).then(() => undefined, refusal);
      expect(refused?.status).toBe(429);
      expect(refused?.message).toContain('$0.03 spent or reserved');
    } finally {
      await gw.close();
    }
  });

  it('an answer that states no token counts has no cost to tell, and is charged to the budget at what it reserved', async () => {
    const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
    const head = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'upstream-model' };
    upstream.always((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${frame({ ...head, choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }] })}data: [DONE]\n\n`);
    });
    const records: RequestRecord[] = [];
    // A Chat stream that did not ask for usage reserves 1000 output tokens at $15 per million: $0.015 and a little.
    const gw = await startGateway(config(upstream, { team: { keys: [KEYS.chat], budget: { usd: 0.02, per: 'day' } } }), {
      observers: [{ requestEnded: (r) => records.push(r) }],
    });
    const sdk = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEYS.chat, maxRetries: 0 });
    const stream = () => sdk.chat.completions.create({ model: 'm-chat', max_completion_tokens: 1000, messages: [{ role: 'user', content: 'hi' }], stream: true });
    try {
      for await (const _ of await stream());
      await waitFor(() => records.length === 1);
      expect(records[0]!.cost).toBeUndefined();
      expect(gw.lines().at(-1)).not.toMatch(/\$|no price/);
      // Charged $0.015: the next starts, and the one after finds $0.03 spent.
      for await (const _ of await stream());
      const refused = await stream().then(() => undefined, refusal);
      expect(refused?.status).toBe(429);
    } finally {
      upstream.always(answering());
      await gw.close();
    }
  });

  it("a per-session budget counts each Claude Code session apart: one is stopped, another goes on, one without a session is not limited, and a restart keeps the stopped one stopped", async () => {
    const ledgerDir = mkdtempSync(join(tmpdir(), 'mgw-session-'));
    const groups = { team: { keys: [KEYS.messages], budget: [{ usd: TINY, per: 'session' as const }, { usd: 100, per: 'day' as const }] } };
    // As Claude Code sends it: its session id in a header on every request of the session.
    const inSession = (gw: TestGateway, session: string | undefined) => {
      const sdk = new Anthropic({ baseURL: gw.url, apiKey: KEYS.messages, maxRetries: 0, ...(session ? { defaultHeaders: { 'x-claude-code-session-id': session } } : {}) });
      return sdk.messages.create({ model: 'm-messages', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).then(() => undefined, refusal);
    };
    const first = await startGateway(config(upstream, groups), { ledgerDir });
    try {
      expect(await inSession(first, 'session-a')).toBeUndefined();
      const refused = await inSession(first, 'session-a');
      expect(refused?.status).toBe(429);
      expect(refused?.message).toContain("Key group 'team' has spent its budget of $0.001 per session in this session (session-a)");
      expect(refused?.message).toContain('a new session has a budget of its own');
      // Another session of the same key has its own budget.
      expect(await inSession(first, 'session-b')).toBeUndefined();
      // A request naming no session is not limited by a per-session budget (the day's still counts it).
      expect(await inSession(first, undefined)).toBeUndefined();
      expect(await inSession(first, undefined)).toBeUndefined();
    } finally {
      await first.close();
    }
    const second = await startGateway(config(upstream, groups), { ledgerDir });
    try {
      expect((await inSession(second, 'session-a'))?.status).toBe(429);
      expect((await inSession(second, 'session-b'))?.status).toBe(429);
      expect(await inSession(second, 'session-c')).toBeUndefined();
    } finally {
      await second.close();
    }
  });

  it('spend survives a restart: the ledger is read back into the counters before the gateway listens', async () => {
    const ledgerDir = mkdtempSync(join(tmpdir(), 'mgw-budget-'));
    const groups = { team: { keys: [KEYS.messages], budget: { usd: 0.02, per: 'day' as const } } };
    const first = await startGateway(config(upstream, groups), { ledgerDir });
    await ask(first, 'messages', KEYS.messages);
    await first.close();
    // $0.0148 of $0.02 spent: one more starts, and the one after is refused.
    const second = await startGateway(config(upstream, groups), { ledgerDir });
    try {
      await ask(second, 'messages', KEYS.messages);
      const refused = await ask(second, 'messages', KEYS.messages).then(() => undefined, refusal);
      expect(refused?.status).toBe(429);
      expect(refused?.message).toContain('$0.03 spent or reserved');
    } finally {
      await second.close();
    }
    // Without the ledger, a restart forgets, and nothing is written.
    const off = mkdtempSync(join(tmpdir(), 'mgw-budget-off-'));
    const third = await startGateway(config(upstream, groups, { ledger: false }), { ledgerDir: off });
    try {
      await ask(third, 'messages', KEYS.messages);
      await ask(third, 'messages', KEYS.messages);
    } finally {
      await third.close();
    }
    expect(readdirSync(off)).toEqual([]);
  });
});

async function waitFor(done: () => boolean): Promise<void> {
  for (const until = Date.now() + 10_000; !done(); ) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}
