/**
 * `serve --watch` in-process, as a user would drive it: a config file edited while the
 * gateway serves (keys added, models re-mapped, broken and fixed edits, editor-style saves),
 * and a reload under load that loses no request.
 */
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { run } from '#src/cli/main.js';
import type { CliIo } from '#src/cli/io.js';
import { chatFrames, chatJson } from '../helpers/canned.js';
import { sendJson, startFakeUpstream, writeSlowly, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import { GATEWAY_KEY } from '../helpers/start-gateway.js';
import { waitFor } from '../helpers/wait-for.js';

const ALICE_KEY = 'alice-gateway-key-0123456789';

let a: FakeUpstream;
let b: FakeUpstream;
beforeAll(async () => {
  [a, b] = await Promise.all([startFakeUpstream(), startFakeUpstream()]);
});
afterAll(() => Promise.all([a.close(), b.close()]));
beforeEach(() => {
  a.reset();
  b.reset();
});

interface Harness {
  io: CliIo;
  stdout: () => string;
  stderr: () => string;
  stop: () => void;
}

function harness(env: Record<string, string | undefined> = {}): Harness {
  let out = '';
  let err = '';
  let stop: (s: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  return {
    io: {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
      env,
      cwd: mkdtempSync(join(tmpdir(), 'mgw-watch-')),
      stopSignal: () => stopped,
    },
    stdout: () => out,
    stderr: () => err,
    stop: () => stop('SIGTERM'),
  };
}

const urlIn = (text: string) => /listening on (http:\/\/\S+)/.exec(text)?.[1];

/** Starts `serve` on `file` and waits until it listens and watches. */
async function startServe(h: Harness, args: string[]) {
  const exit = run(['serve', ...args, '--no-color'], h.io);
  const url = await waitFor(() => urlIn(h.stdout()), `the banner (stderr: ${h.stderr()})`);
  return { exit, url };
}

/** Waits for the output to contain `text` after what it held at `mark`; returns the new part. */
async function printed(h: Harness, mark: number, text: string | RegExp): Promise<string> {
  return waitFor(() => {
    const fresh = h.stdout().slice(mark);
    return (typeof text === 'string' ? fresh.includes(text) : text.test(fresh)) ? fresh : undefined;
  }, `${String(text)} in the output (so far: ${h.stdout().slice(mark)})`);
}

interface Written {
  a?: { apiKey?: string };
  model: { provider: 'a' | 'b'; upstreamModel?: string };
  aliceKey?: boolean;
  server?: Record<string, unknown>;
}

function config(w: Written): Record<string, unknown> {
  return {
    ...(w.server ? { server: w.server } : {}),
    providers: {
      a: { type: 'openai-compatible', baseUrl: `${a.url}/v1`, ...(w.a?.apiKey ? { apiKey: w.a.apiKey } : {}) },
      b: { type: 'openai-compatible', baseUrl: `${b.url}/v1` },
    },
    models: { m: w.model },
    keyGroups: { dev: { keys: [GATEWAY_KEY, ...(w.aliceKey ? [{ name: 'alice', key: ALICE_KEY }] : [])], models: ['*'] } },
  };
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** Saves the way many editors do: write a temporary file beside it, then rename it over. */
function saveAtomically(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

async function chat(url: string, key: string, body: Record<string, unknown> = {}) {
  const res = await request(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
  const servedBy = res.headers['x-request-id'];
  return { status: res.statusCode, text: await res.body.text(), servedBy: typeof servedBy === 'string' ? servedBy.replace(/^served-by-/, '') : undefined };
}

/**
 * Answers naming the upstream model it was asked for in its request id, which reaches the caller (the answer's own
 * `model` is the one the caller asked for), so the caller sees which config routed it.
 */
const servedBy = (req: Received) => ({ 'x-request-id': `served-by-${String((req.json as { model: string }).model)}` });
const answerWithModel = (req: Received, res: ServerResponse) => sendJson(res, 200, chatJson(String((req.json as { model: string }).model)), servedBy(req));

describe('serve --watch', () => {
  it('follows edits: a key added, a model re-mapped, broken edits refused, a fix, a credential change', async () => {
    a.always(answerWithModel);
    b.always(answerWithModel);
    const h = harness();
    const file = join(h.io.cwd, 'gateway.config.json');
    writeFileSync(file, json(config({ model: { provider: 'a' }, a: { apiKey: 'sk-a-secret-one-1111' } })));
    const { exit, url } = await startServe(h, ['--config', file, '--port', '0']);
    await printed(h, 0, 'Watching gateway.config.json for changes');

    expect((await chat(url, GATEWAY_KEY)).servedBy).toBe('m');
    expect(a.received).toHaveLength(1);
    expect((await chat(url, ALICE_KEY)).status).toBe(401);

    // 1. Re-map the model to the other upstream under another name, and add a key.
    let mark = h.stdout().length;
    writeFileSync(file, json(config({ model: { provider: 'b', upstreamModel: 'model-b' }, aliceKey: true, a: { apiKey: 'sk-a-secret-one-1111' } })));
    let out = await printed(h, mark, 'reloaded gateway.config.json (config #2): 2 changes');
    expect(out).toContain('~ model    m: re-mapped a → b/model-b');
    expect(out).toContain('+ key      dev:alice');
    const viaAlice = await chat(url, ALICE_KEY);
    expect(viaAlice.status).toBe(200);
    expect(viaAlice.servedBy).toBe('model-b');
    expect(b.received).toHaveLength(1);
    expect(a.received).toHaveLength(1);

    // 2. A reference to a provider that does not exist: refused, config #2 keeps serving.
    mark = h.stdout().length;
    writeFileSync(file, json({ ...config({ model: { provider: 'b' } }), models: { m: { provider: 'nope' } } }));
    out = await printed(h, mark, 'gateway.config.json not applied; still serving config #2:');
    expect(out).toContain(`Invalid configuration in ${file}:`);
    expect(out).toMatch(/ {2}- models\.m\.provider: .*nope/);
    expect((await chat(url, ALICE_KEY)).servedBy).toBe('model-b');

    // 3. Not even JSON, saved by rename: refused with the parser's words.
    mark = h.stdout().length;
    saveAtomically(file, '{ "providers": { ');
    out = await printed(h, mark, 'not applied; still serving config #2:');
    expect(out).toMatch(/ {2}- \(root\): could not parse \(JSON\)/);
    expect((await chat(url, GATEWAY_KEY)).servedBy).toBe('model-b');

    // 4. Fixed, saved by rename again (the watch survives the file being replaced): back to a, alice gone.
    mark = h.stdout().length;
    saveAtomically(file, json(config({ model: { provider: 'a' }, a: { apiKey: 'sk-a-secret-one-1111' } })));
    out = await printed(h, mark, 'reloaded gateway.config.json (config #3): 2 changes');
    expect(out).toContain('~ model    m: re-mapped b/model-b → a');
    expect(out).toContain('- key      dev:alice');
    expect((await chat(url, ALICE_KEY)).status).toBe(401);
    expect((await chat(url, GATEWAY_KEY)).servedBy).toBe('m');
    expect(a.received).toHaveLength(2);

    // 5. Saving the same content does nothing; the next real change is config #4, a new credential.
    mark = h.stdout().length;
    writeFileSync(file, json(config({ model: { provider: 'a' }, a: { apiKey: 'sk-a-secret-one-1111' } })));
    // Two debounce periods: the unchanged save is looked at on its own, and must print nothing.
    await new Promise((r) => setTimeout(r, 300));
    writeFileSync(file, json(config({ model: { provider: 'a' }, a: { apiKey: 'sk-a-secret-two-2222' } })));
    out = await printed(h, mark, 'reloaded gateway.config.json (config #4): 1 change');
    expect(out).toContain('~ provider a: credential changed');
    expect(out.match(/gateway\.config\.json/g)).toHaveLength(1);
    await chat(url, GATEWAY_KEY);
    expect(a.last().headers.authorization).toBe('Bearer sk-a-secret-two-2222');

    h.stop();
    expect(await exit).toBe(0);
    for (const secret of [ALICE_KEY, GATEWAY_KEY, 'sk-a-secret-one-1111', 'sk-a-secret-two-2222']) {
      expect(h.stdout()).not.toContain(secret);
    }
  });

  it('applies maxBodyBytes live but says a new port needs a restart, and keeps serving where it is', async () => {
    a.always(answerWithModel);
    const h = harness();
    const file = join(h.io.cwd, 'gateway.config.yaml');
    const yaml = (port: number, maxBodyBytes: number) =>
      [
        `server: { host: 127.0.0.1, port: ${port}, maxBodyBytes: ${maxBodyBytes} }`,
        `providers: { a: { type: openai-compatible, baseUrl: "${a.url}/v1" } }`,
        'models: { m: { provider: a } }',
        `keyGroups: { dev: { keys: ["${GATEWAY_KEY}"] } }`,
        '',
      ].join('\n');
    writeFileSync(file, yaml(0, 100_000));
    const { exit, url } = await startServe(h, []);
    await printed(h, 0, 'Watching gateway.config.yaml for changes');
    const big = { metadata: { pad: 'x'.repeat(2000) } };
    expect((await chat(url, GATEWAY_KEY, big)).status).toBe(200);

    let mark = h.stdout().length;
    writeFileSync(file, yaml(1, 1000));
    let out = await printed(h, mark, 'reloaded gateway.config.yaml (config #2): 1 change');
    expect(out).toContain('~ server   server: maxBodyBytes 100000 → 1000');
    expect(out).toContain(`! server   port 0 → 1 not applied: a running server cannot move; still listening on ${url}`);
    expect((await chat(url, GATEWAY_KEY, big)).status).toBe(413);
    expect((await chat(url, GATEWAY_KEY)).status).toBe(200);

    // Only the address changes: nothing to apply, the notice again.
    mark = h.stdout().length;
    writeFileSync(file, yaml(2, 1000));
    out = await printed(h, mark, 'gateway.config.yaml changed: nothing to apply');
    expect(out).toContain('! server   port 0 → 2 not applied');
    expect((await chat(url, GATEWAY_KEY)).status).toBe(200);

    h.stop();
    expect(await exit).toBe(0);
  });

  it('says metrics and tracing changes need a restart, and keeps serving metrics as they were set up', async () => {
    a.always(answerWithModel);
    const h = harness();
    const file = join(h.io.cwd, 'gateway.config.yaml');
    const yaml = (extra: string[]) =>
      [
        'server: { host: 127.0.0.1, port: 0 }',
        `providers: { a: { type: openai-compatible, baseUrl: "${a.url}/v1" } }`,
        'models: { m: { provider: a } }',
        `keyGroups: { dev: { keys: ["${GATEWAY_KEY}"] } }`,
        ...extra,
        '',
      ].join('\n');
    writeFileSync(file, yaml(['metrics: { port: 0 }']));
    const { exit, url } = await startServe(h, []);
    await printed(h, 0, 'Watching gateway.config.yaml for changes');
    const metricsUrl = await waitFor(() => /metrics\s+(http:\/\/\S+)/.exec(h.stdout())?.[1], 'the metrics URL in the banner');
    expect((await chat(url, GATEWAY_KEY)).status).toBe(200);

    const mark = h.stdout().length;
    writeFileSync(file, yaml(['metrics: { port: 0, labels: [keyGroup] }', 'tracing: { otlpEndpoint: "http://127.0.0.1:4318", sampleRatio: 0.5 }']));
    const out = await printed(h, mark, 'gateway.config.yaml changed: nothing to apply');
    expect(out).toContain("! server   metrics.labels (none) → keyGroup not applied: metrics are set up at start (restart serve to use this)");
    expect(out).toContain('! server   tracing off → on not applied: tracing is set up at start (restart serve to use this)');
    // Still the metrics set up at start: a request's series carry no key group.
    expect((await chat(url, GATEWAY_KEY)).status).toBe(200);
    const scraped = await (await request(metricsUrl)).body.text();
    expect(scraped).toMatch(/model_gateway_requests_total\{[^}]*status="200"[^}]*\} 2/);
    expect(scraped).not.toContain('key_group=');

    h.stop();
    expect(await exit).toBe(0);
  });

  it('--no-watch serves the file as it was at start', async () => {
    a.always(answerWithModel);
    b.always(answerWithModel);
    const h = harness();
    const file = join(h.io.cwd, 'gateway.config.json');
    writeFileSync(file, json(config({ model: { provider: 'a' } })));
    const { exit, url } = await startServe(h, ['--config', file, '--port', '0', '--no-watch']);
    writeFileSync(file, json(config({ model: { provider: 'b' } })));
    // Proving that nothing happens needs a wait: three debounce periods.
    await new Promise((r) => setTimeout(r, 450));
    await chat(url, GATEWAY_KEY);
    expect(a.received).toHaveLength(1);
    expect(b.received).toHaveLength(0);
    expect(h.stdout()).not.toMatch(/Watching|reloaded/);
    h.stop();
    expect(await exit).toBe(0);
  });

  it('--watch with the built-in default says there is nothing to watch', async () => {
    const h = harness({ MODEL_GATEWAY_KEY: 'a-key-of-my-own-1234567' });
    const { exit } = await startServe(h, ['--port', '0', '--watch']);
    expect(h.stderr()).toContain('--watch has nothing to watch: serving the built-in default');
    expect(h.stdout()).not.toContain('Watching');
    h.stop();
    expect(await exit).toBe(0);
  });

  it('says a JavaScript config takes effect on restart rather than serving a stale copy', async () => {
    a.always(answerWithModel);
    const h = harness();
    const file = join(h.io.cwd, 'model-gateway.config.mjs');
    writeFileSync(file, `export default ${json(config({ model: { provider: 'a' } }))};\n`);
    const { exit, url } = await startServe(h, ['--port', '0']);
    await printed(h, 0, 'Watching model-gateway.config.mjs for changes');
    const mark = h.stdout().length;
    writeFileSync(file, `export default ${json(config({ model: { provider: 'b' } }))};\n`);
    await printed(h, mark, 'model-gateway.config.mjs changed, not applied: Node caches JavaScript modules');
    expect((await chat(url, GATEWAY_KEY)).status).toBe(200);
    expect(a.received).toHaveLength(1);
    h.stop();
    expect(await exit).toBe(0);
  });

  it('a reload under load loses no request: in-flight streams finish on the old config, new ones use the new', async () => {
    // Every upstream names the upstream model it was asked for: v1..v4 name the config that routed it.
    // "slow" requests take about 2.4 s, longer than all the reloads together; the others about 0.2 s.
    const stream = async (req: Received, res: ServerResponse) => {
      const body = req.json as { model: string; messages: { content: string }[] };
      res.writeHead(200, { 'content-type': 'text/event-stream', ...servedBy(req) });
      await writeSlowly(res, chatFrames(body.model, false), body.messages[0]?.content === 'slow' ? 400 : 30);
      res.end();
    };
    a.always(stream);
    b.always(stream);
    const versions = [
      { provider: 'a', upstreamModel: 'v1' },
      { provider: 'b', upstreamModel: 'v2' },
      { provider: 'a', upstreamModel: 'v3' },
      { provider: 'b', upstreamModel: 'v4' },
    ] as const;
    const h = harness();
    const file = join(h.io.cwd, 'gateway.config.json');
    writeFileSync(file, json(config({ model: versions[0] })));
    const { exit, url } = await startServe(h, ['--config', file, '--port', '0']);
    await printed(h, 0, 'Watching gateway.config.json');

    interface Call {
      readonly expected: string | undefined;
      readonly done: Promise<{ status: number; text: string; servedBy: string | undefined; endedAt: number }>;
    }
    const call = (content: string, expected: string | undefined): Call => ({
      expected,
      done: chat(url, GATEWAY_KEY, { stream: true, messages: [{ role: 'user', content }] }).then((r) => ({ ...r, endedAt: Date.now() })),
    });

    const slow = Array.from({ length: 8 }, () => call('slow', 'v1'));
    await waitFor(() => a.received.length === 8, 'the 8 slow streams to reach the upstream');

    // A steady trickle of new requests. One started while a save is being applied may get either
    // config; one started after a summary was printed must get that config.
    let applied: string | undefined = 'v1';
    const trickle: Call[] = [];
    let trickling = true;
    const trickler = (async () => {
      while (trickling) {
        trickle.push(call('quick', applied));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    let lastReloadAt = 0;
    for (const [i, version] of versions.entries()) {
      if (i === 0) continue;
      await new Promise((r) => setTimeout(r, 60));
      const mark = h.stdout().length;
      applied = undefined;
      const text = json(config({ model: version }));
      if (i === 1) writeFileSync(file, text);
      if (i === 2) saveAtomically(file, text);
      if (i === 3) {
        // Truncate, then write a moment later: one save, one reload.
        writeFileSync(file, '');
        await new Promise((r) => setTimeout(r, 20));
        writeFileSync(file, text);
      }
      await printed(h, mark, `(config #${i + 1}): 1 change`);
      lastReloadAt = Date.now();
      applied = version.upstreamModel;
    }
    expect(h.stdout()).toMatch(/\d+ requests in flight finish on config #1\n/);
    await new Promise((r) => setTimeout(r, 100));
    trickling = false;
    await trickler;
    // The slow streams are still running, so config #1 (and its providers) is still around.
    expect(h.stdout()).not.toContain('config #1 retired');

    const results = await Promise.all([...slow, ...trickle].map((c) => c.done));
    for (const [i, r] of results.entries()) {
      const c = [...slow, ...trickle][i]!;
      expect(r.status, `request ${i}`).toBe(200);
      expect(r.text, `request ${i}`).toContain('"content":" upstream"');
      expect(r.text, `request ${i}`).toContain('data: [DONE]');
      if (c.expected !== undefined) expect(r.servedBy, `request ${i}`).toBe(c.expected);
    }
    for (const r of results.slice(0, 8)) expect(r.endedAt).toBeGreaterThan(lastReloadAt);
    // Requests really were spread over the configs.
    const served = new Set(results.map((r) => r.servedBy));
    expect([...served].sort()).toEqual(['v1', 'v2', 'v3', 'v4']);
    expect(trickle.length).toBeGreaterThan(10);
    expect(a.received.length + b.received.length).toBe(results.length);
    expect(h.stdout()).not.toContain('not applied');

    await printed(h, 0, /config #1 retired: the \d+ requests it was serving finished; its providers are closed/);
    h.stop();
    expect(await exit).toBe(0);
  });
});
