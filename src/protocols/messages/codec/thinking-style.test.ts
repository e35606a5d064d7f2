/** Which thinking form each Claude model gets, and the request a translated effort becomes in each form. */
import { describe, expect, it } from 'vitest';
import type * as Ir from '#src/translate/ir.js';
import { messagesCodec } from './codec.js';
import { thinkingStyleFor } from './thinking-style.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

describe('thinkingStyleFor: from the model name', () => {
  it.each([
    ['claude-opus-4-6', 'adaptive'],
    ['claude-sonnet-4-6', 'adaptive'],
    ['claude-opus-4-7', 'adaptive'],
    ['claude-opus-4.7', 'adaptive'],
    ['anthropic.claude-opus-4-6-v1:0', 'adaptive'],
    ['claude-sonnet-5', 'adaptive'],
    ['claude-opus-4-5-20251101', 'enabled'],
    ['claude-haiku-4-5', 'enabled'],
    ['claude-sonnet-4-20250514', 'enabled'],
    ['claude-opus-4-1-20250805', 'enabled'],
    ['claude-3-7-sonnet-20250219', 'enabled'],
    ['my-alias', 'enabled'],
  ])('%s → %s', (model, style) => {
    expect(thinkingStyleFor(model)).toBe(style);
  });
});

describe('encodeRequest: the thinking form the model takes', () => {
  const request = (reasoning: Ir.ReasoningRequest): Ir.Request => ({
    model: 'gpt-5',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    stream: false,
    reasoning,
  });
  const encode = (upstreamModel: string, reasoning: Ir.ReasoningRequest, extra: Partial<Ir.TranslateContext> = {}) => {
    const ctx = translateContext({ caller: 'responses', upstream: 'messages', requestedModel: 'gpt-5', upstreamModel, upstreamDialect: 'anthropic', ...extra });
    return { body: messagesCodec.encodeRequest(request(reasoning), ctx), warnings: ctx.warnings };
  };

  it.each([
    ['minimal', 'low'],
    ['low', 'low'],
    ['medium', 'medium'],
    ['high', 'high'],
    ['max', 'max'],
  ] as const)('adaptive models: effort %s → thinking adaptive, output_config.effort %s, no budget', (effort, sent) => {
    const { body, warnings } = encode('claude-opus-4-7', { effort });
    expect(body.thinking).toEqual({ type: 'adaptive' });
    expect(body.output_config).toEqual({ effort: sent });
    expect(warnings).toEqual([]);
  });

  it('adaptive: xhigh is sent as high and said; a budget alone becomes its effort; the json schema format stays beside the effort', () => {
    expect(encode('claude-opus-4-6', { effort: 'xhigh' })).toMatchObject({ body: { output_config: { effort: 'high' } }, warnings: ['reasoning effort xhigh as high'] });
    expect(encode('claude-opus-4-6', { budgetTokens: 20_000 }).body.output_config).toEqual({ effort: 'high' });
    const ctx = translateContext({ caller: 'chat', upstream: 'messages', requestedModel: 'm', upstreamModel: 'claude-sonnet-4-6', upstreamDialect: 'anthropic' });
    const body = messagesCodec.encodeRequest(
      { ...request({ effort: 'low' }), responseFormat: { type: 'json_schema', schema: { type: 'object' } } },
      ctx,
    );
    expect(body.output_config).toEqual({ format: { type: 'json_schema', schema: { type: 'object' } }, effort: 'low' });
  });

  it('models before 4.6 never get adaptive: a budget, and no effort field', () => {
    const { body } = encode('claude-sonnet-4-5', { effort: 'high' });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(body).not.toHaveProperty('output_config');
  });

  it("the model's configuration wins over its name", () => {
    expect(encode('my-alias', { effort: 'low' }, { thinkingStyle: 'adaptive' }).body.thinking).toEqual({ type: 'adaptive' });
    expect(encode('claude-opus-4-6', { effort: 'low' }, { thinkingStyle: 'enabled' }).body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
  });

  it('no reasoning asked, or none: no thinking and no effort', () => {
    expect(encode('claude-opus-4-7', { effort: 'none' }).body).not.toHaveProperty('thinking');
    expect(encode('claude-opus-4-7', { effort: 'none' }).body).not.toHaveProperty('output_config');
  });
});
