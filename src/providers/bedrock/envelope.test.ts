/** The Messages body in Bedrock's envelope: what goes, what comes in, what is dropped and named. */
import { describe, expect, it } from 'vitest';
import type { EnvelopeCall } from '../kind.js';
import { bedrockEnvelope } from './envelope.js';

const base = { model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
const call = (json: Record<string, unknown>, headers: Record<string, string> = {}, operation: EnvelopeCall['operation'] = 'create'): EnvelopeCall => ({
  protocol: 'messages',
  operation,
  json,
  headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
});

describe('bedrock envelope', () => {
  it.each<[string, Record<string, unknown>, Record<string, string>, Record<string, unknown>, string[]]>([
    ['model and stream go, the version comes in', { ...base, stream: true }, {}, { anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: base.messages }, []],
    [
      'known betas move into the body, unknown ones are dropped',
      base,
      { 'anthropic-beta': 'interleaved-thinking-2025-05-14, oauth-2025-04-20,context-1m-2025-08-07' },
      { anthropic_beta: ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07'] },
      ['anthropic-beta oauth-2025-04-20'],
    ],
    ['advanced tool use goes under Bedrock\'s name', base, { 'anthropic-beta': 'advanced-tool-use-2025-11-20' }, { anthropic_beta: ['tool-search-tool-2025-10-19'] }, []],
    [
      'fields Bedrock has not are dropped',
      { ...base, metadata: { user_id: 'u' }, service_tier: 'auto', container: 'c', inference_geo: 'us', mcp_servers: [], speed: 'fast' },
      {},
      {},
      ['metadata', 'service_tier', 'container', 'inference_geo', 'mcp_servers', 'speed'],
    ],
    ['context_management without its beta is dropped', { ...base, context_management: { edits: [] } }, {}, {}, ['context_management']],
    [
      'context_management with its beta stays',
      { ...base, context_management: { edits: [] } },
      { 'anthropic-beta': 'context-management-2025-06-27' },
      { context_management: { edits: [] }, anthropic_beta: ['context-management-2025-06-27'] },
      [],
    ],
    [
      'tool fields without their betas are dropped; eager streaming becomes its beta',
      { ...base, tools: [{ name: 'a', input_schema: {}, input_examples: [{}], defer_loading: true, eager_input_streaming: true }] },
      {},
      { tools: [{ name: 'a', input_schema: {} }], anthropic_beta: ['fine-grained-tool-streaming-2025-05-14'] },
      ['tool input_examples', 'tool defer_loading'],
    ],
    ['output_config and thinking stay', { ...base, thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }, {}, { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }, []],
  ])('%s', (_name, json, headers, has, dropped) => {
    const out = bedrockEnvelope(call(json, headers))!;
    expect(out.json).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', ...has });
    expect(out.json).not.toHaveProperty('model');
    expect(out.json).not.toHaveProperty('stream');
    for (const field of dropped.filter((d) => !d.includes(' '))) expect(out.json).not.toHaveProperty(field);
    expect(out.dropped).toEqual(dropped);
    expect(out.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('count_tokens wraps the InvokeModel body, base64, with a max_tokens InvokeModel requires', () => {
    const out = bedrockEnvelope(call({ model: base.model, messages: base.messages, metadata: {} }, { 'anthropic-beta': 'effort-2025-11-24' }, 'count_tokens'))!;
    const inner = JSON.parse(Buffer.from((out.json as { input: { invokeModel: { body: string } } }).input.invokeModel.body, 'base64').toString('utf8'));
    expect(Object.keys(out.json)).toEqual(['input']);
    expect(inner).toEqual({ anthropic_version: 'bedrock-2023-05-31', messages: base.messages, anthropic_beta: ['effort-2025-11-24'], max_tokens: 1 });
    expect(out.dropped).toEqual(['metadata']);
  });

  it('leaves Chat bodies (the OpenAI-compatible endpoint) as they are', () => {
    const json = { model: 'openai.gpt-oss-120b-1:0', messages: [{ role: 'user', content: 'hi' }], stream: true };
    expect(bedrockEnvelope({ protocol: 'chat', operation: 'create', json, headers: { 'content-type': 'application/json' } })).toBeUndefined();
  });
});
