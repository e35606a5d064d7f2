/**
 * Translated requests ask each Claude model to think in the form it takes: a fake Anthropic refuses
 * `thinking.type` values the way the real models do (Opus 4.7 and later: no `enabled` budgets;
 * models before 4.6: no `adaptive`), and a model's `thinking` setting overrides its name.
 */
import type { ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Received } from '../helpers/received.js';
import { startFakeUpstream, sendJson, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, PROVIDER_ANTHROPIC_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';

type Json = Record<string, unknown>;

/** What each real model refuses. */
const REFUSES: Record<string, string> = { 'claude-opus-4-7': 'enabled', 'claude-sonnet-4-5': 'adaptive' };

function strictAnthropic(req: Received, res: ServerResponse): void {
  const body = req.json as Json;
  const type = (body.thinking as Json | undefined)?.type;
  if (type !== undefined && REFUSES[String(body.model)] === type) {
    sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: `thinking.type: "${String(type)}" is not supported for this model.` } });
    return;
  }
  sendJson(res, 200, {
    id: 'msg_1', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: 'Done.' }],
    stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 5, output_tokens: 2 },
  });
}

let upstream: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gw = await startGateway({
    providers: { anthropic: { type: 'anthropic', baseUrl: upstream.url, apiKey: PROVIDER_ANTHROPIC_KEY, retries: 0 } },
    models: {
      'claude-opus-4-7': { provider: 'anthropic' },
      'claude-sonnet-4-5': { provider: 'anthropic' },
      // An alias whose name says nothing, and a model told to use budgets although its name would say adaptive.
      'house-model': { provider: 'anthropic', upstreamModel: 'claude-opus-4-7', thinking: 'adaptive' },
      'budget-opus': { provider: 'anthropic', upstreamModel: 'claude-opus-4-6', thinking: 'enabled' },
    },
    keyGroups: { dev: { keys: [GATEWAY_KEY], models: ['*'] } },
  });
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

beforeEach(() => {
  upstream.reset();
  upstream.always(strictAnthropic);
});

describe('a Codex-style request with reasoning effort, translated to Claude', () => {
  const client = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });

  it.each([
    ['claude-opus-4-7', { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }],
    ['house-model', { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }],
    ['claude-sonnet-4-5', { thinking: { type: 'enabled', budget_tokens: 16384 } }],
    ['budget-opus', { thinking: { type: 'enabled', budget_tokens: 16384 } }],
  ])('%s gets thinking in the form it takes', async (model, sent) => {
    const answer = await client().responses.create({ model, input: 'Plan the refactor.', reasoning: { effort: 'high' } });
    expect(answer.output_text).toBe('Done.');
    const body = upstream.last().json as Json;
    expect(body).toMatchObject(sent);
    if (!('output_config' in sent)) expect(body).not.toHaveProperty('output_config');
  });
});
