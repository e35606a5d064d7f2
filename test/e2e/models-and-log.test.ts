/** `GET /v1/models` per key group and shape, and what the log prints (lines, --verbose, --log-file) without secrets. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANNED_TEXT, chatFrames } from '../helpers/canned.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import {
  CI_KEY,
  GATEWAY_KEY,
  PROVIDER_ANTHROPIC_KEY,
  PROVIDER_OPENAI_KEY,
  startGateway,
  testConfig,
  waitForLines,
  type TestGateway,
} from '../helpers/start-gateway.js';

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

describe('GET /v1/models', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway(testConfig(upstream.url));
  });
  afterAll(() => gw.close());

  it('lists the exact models a group may use, in OpenAI shape', async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: CI_KEY });
    const ids = [];
    for await (const m of openai.models.list()) ids.push(m.id);
    expect(ids).toEqual(['gpt-test', 'local-chat']);
    const all = await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY }).models.list();
    expect(all.data.map((m) => m.id)).toEqual(['gpt-test', 'claude-test', 'local-chat', 'no-stream', 'chat-only', 'echo']);
    expect(all.data[0]).toMatchObject({ object: 'model', owned_by: 'openai', created: expect.any(Number) });
  });

  it('answers in Anthropic shape when anthropic-version is sent, and pages end', async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY });
    const ids = [];
    for await (const m of anthropic.models.list()) ids.push(m.id);
    expect(ids).toHaveLength(6);
    const res = await call(`${gw.url}/v1/models?limit=1000`, { method: 'GET', headers: { 'x-api-key': CI_KEY, 'anthropic-version': '2023-06-01' } });
    expect(res.json).toEqual({
      data: [
        { type: 'model', id: 'gpt-test', display_name: 'gpt-test', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
        { type: 'model', id: 'local-chat', display_name: 'local-chat', created_at: expect.any(String) },
      ],
      has_more: false,
      first_id: 'gpt-test',
      last_id: 'local-chat',
    });
  });

  it('retrieves one model, and 404s one the group cannot see', async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: CI_KEY, maxRetries: 0 });
    expect((await openai.models.retrieve('gpt-test')).id).toBe('gpt-test');
    await expect(openai.models.retrieve('claude-test')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('needs a key', async () => {
    const res = await call(`${gw.url}/v1/models`, { method: 'GET' });
    expect(res.status).toBe(401);
  });
});

describe('the traffic log', () => {
  it('--verbose prints redacted headers and bodies; --log-file gets one JSON object per request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-log-'));
    const logFile = join(dir, 'requests.jsonl');
    const gw = await startGateway(testConfig(upstream.url), { verbose: true, logFile });
    try {
      const anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY });
      await anthropic.messages.create({ model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'a secret-free prompt' }] });
      const bad = await call(`${gw.url}/v1/chat/completions`, { headers: { authorization: 'Bearer not-a-real-key-999' }, body: '{}' });
      expect(bad.status).toBe(401);
      const streamed = await call(`${gw.url}/v1/chat/completions`, {
        headers: { authorization: `Bearer ${GATEWAY_KEY}` },
        body: JSON.stringify({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(streamed.status).toBe(200);
      await waitForLines(gw, 3);
      await gw.close();

      const printed = gw.output.join('');
      expect(printed).toContain('→ request headers');
      expect(printed).toContain('    authorization: [redacted]');
      // The SDK's own headers on one line.
      expect(printed).toMatch(/\n {4}telemetry: Anthropic\/JS [^\n]* · sdk js [^\n]* · retry 0 · timeout 600s\n/);
      expect(printed).not.toMatch(/\n {4}x-stainless-/);
      expect(printed).toContain('a secret-free prompt');
      expect(printed).toContain('← response body');
      // The stream put together.
      expect(printed).toContain(`  ← response body: streamed, ${chatFrames('gpt-upstream', false).length} events, stop: end\n    text      ${CANNED_TEXT}\n`);
      expect(printed).toMatch(/401 POST \/v1\/chat\/completions \d+ms ✗ Invalid API key/);

      const entries = readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(entries).toHaveLength(3);
      expect(entries[0]).toMatchObject({
        method: 'POST',
        path: '/v1/messages',
        status: 200,
        model: 'claude-test',
        provider: 'anthropic',
        upstreamModel: 'claude-upstream',
        keyGroup: 'dev',
        usage: { inputTokens: 17, outputTokens: 3, cachedTokens: 5 },
        request: { headers: { authorization: '[redacted]' }, body: { json: { model: 'claude-test' } } },
        attempts: [{ provider: 'anthropic', upstreamModel: 'claude-upstream', status: 200, body: { json: { model: 'claude-upstream' } } }],
        response: { status: 200, body: { json: { type: 'message' } } },
      });
      expect(entries[1]).toMatchObject({ status: 401, error: expect.stringMatching(/Invalid API key/) });
      expect(entries[2]).toMatchObject({
        stream: true,
        response: {
          headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
          body: { events: expect.arrayContaining([expect.objectContaining({ data: '[DONE]' })]) },
        },
      });

      const everything = printed + readFileSync(logFile, 'utf8');
      for (const secret of [GATEWAY_KEY, 'not-a-real-key-999', PROVIDER_OPENAI_KEY, PROVIDER_ANTHROPIC_KEY]) {
        expect(everything).not.toContain(secret);
      }
    } finally {
      await gw.close().catch(() => undefined);
    }
  });

  it('--no-log-bodies writes the facts of each request and no bodies, even with --verbose on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-log-'));
    for (const verbose of [false, true]) {
      const logFile = join(dir, `facts-${verbose}.jsonl`);
      const gw = await startGateway(testConfig(upstream.url), { verbose, logFile, logBodies: false });
      try {
        const res = await call(`${gw.url}/v1/chat/completions`, {
          headers: { authorization: `Bearer ${GATEWAY_KEY}` },
          body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'a body the file must not keep' }] }),
        });
        expect(res.status).toBe(200);
        await waitForLines(gw, 1);
        await gw.close();
        expect(gw.output.join('').includes('a body the file must not keep')).toBe(verbose);
        const text = readFileSync(logFile, 'utf8');
        const entries = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(entries).toHaveLength(1);
        expect(entries[0]).toMatchObject({ v: 1, status: 200, model: 'gpt-test', upstreamModel: 'gpt-upstream', keyGroup: 'dev', usage: { outputTokens: expect.any(Number) } });
        expect(entries[0]).not.toHaveProperty('request');
        expect(entries[0]).not.toHaveProperty('attempts');
        expect(entries[0]).not.toHaveProperty('response');
        expect(text).not.toContain('a body the file must not keep');
      } finally {
        await gw.close().catch(() => undefined);
      }
    }
  });
});
