/**
 * Every field that turns a feature on, per protocol (the tables in src/protocols/<protocol>/features.ts):
 * each row has bodies that use it, and each such body, sent through the official SDK by a key group
 * without that feature, is refused 403 without reaching the provider, and passes from a group with
 * every feature. Bodies that leave a feature off pass from a group without any.
 */
import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { featuresOf, type FeatureField } from '#src/protocols/features.js';
import { CHAT_FEATURES } from '#src/protocols/chat/features.js';
import { MESSAGES_FEATURES } from '#src/protocols/messages/features.js';
import { RESPONSES_FEATURES } from '#src/protocols/responses/features.js';
import { FEATURES, type Feature } from '#src/protocols/types.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, testConfig, type TestGateway } from '../helpers/start-gateway.js';

type Body = Record<string, unknown>;

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
type Examples = Record<string, readonly Body[]>;

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const PDF = 'data:application/pdf;base64,JVBERi0xLjQ=';
const fn = { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } };
const user = (content: unknown) => ({ messages: [{ role: 'user', content }] });

const CHAT_BASE: Body = { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] };
const CHAT: Examples = {
  'streaming stream': [{ stream: true }],
  'tools tools': [{ tools: [fn] }, { tools: [{ type: 'custom', custom: { name: 'c' } }] }],
  'tools functions': [{ functions: [{ name: 'f', parameters: { type: 'object' } }] }],
  'tools tool_choice': [{ tool_choice: 'required' }, { tool_choice: { type: 'function', function: { name: 'f' } } }],
  'tools function_call': [{ function_call: { name: 'f' } }],
  'tools web_search_options': [{ web_search_options: {} }, { web_search_options: { search_context_size: 'low' } }],
  'tools plugins': [{ plugins: [{ id: 'web' }] }],
  'images messages[].content': [
    user([{ type: 'text', text: 'what is this' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }]),
    user([{ type: 'image_url', image_url: { url: PNG, detail: 'low' } }]),
    // An image returned by a tool, as several OpenAI-compatible servers take it.
    {
      messages: [
        { role: 'user', content: 'look' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shot', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: [{ type: 'image_url', image_url: { url: PNG } }] },
      ],
    },
    // A file whose data is an image: the translator makes it an image block.
    user([{ type: 'file', file: { file_data: PNG, filename: 'cat.png' } }]),
    { messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: PNG } }] }, { role: 'user', content: 'hi' }] },
    // Another protocol's spelling, which a lax server may take.
    user([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }]),
  ],
  'reasoning reasoning_effort': [{ reasoning_effort: 'low' }, { reasoning_effort: 'minimal' }],
  'reasoning reasoning': [{ reasoning: { effort: 'high' } }, { reasoning: {} }, { reasoning: { max_tokens: 2000 } }, { reasoning: { enabled: true } }],
  'reasoning include_reasoning': [{ include_reasoning: true }],
  'reasoning thinking': [{ thinking: { type: 'enabled' } }, { thinking: { type: 'enabled', budget_tokens: 1024 } }, { thinking: true }],
  'reasoning enable_thinking': [{ enable_thinking: true }, { enable_thinking: 'true' }],
  'reasoning chat_template_kwargs.enable_thinking': [{ chat_template_kwargs: { enable_thinking: true } }],
  'reasoning chat_template_kwargs.thinking': [{ chat_template_kwargs: { thinking: true } }],
};
const CHAT_OFF: readonly Body[] = [
  { stream: false },
  { stream_options: { include_usage: true } },
  { tools: [] },
  { tool_choice: 'auto' },
  { tool_choice: 'none' },
  { function_call: 'none' },
  { web_search_options: null },
  { reasoning_effort: 'none' },
  { reasoning_effort: null },
  { reasoning: { effort: 'none' } },
  { reasoning: { enabled: false } },
  { thinking: { type: 'disabled' } },
  { enable_thinking: false },
  { chat_template_kwargs: { enable_thinking: false, thinking: false } },
  user([{ type: 'text', text: 'a' }, { type: 'file', file: { file_data: PDF, filename: 'a.pdf' } }]),
  user([{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }]),
];

const RESPONSES_BASE: Body = { model: 'gpt-test', input: 'hi' };
const input = (...items: unknown[]) => ({ input: items });
const responsesUser = (content: unknown) => input({ role: 'user', content });
const RESPONSES: Examples = {
  'streaming stream': [{ stream: true }],
  'tools tools': [
    { tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: false }] },
    { tools: [{ type: 'web_search' }] },
    { tools: [{ type: 'web_search_preview' }] },
    { tools: [{ type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example.com' }] },
    { tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] },
    { tools: [{ type: 'image_generation' }] },
    { tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] },
  ],
  'tools tool_choice': [{ tool_choice: 'required' }, { tool_choice: { type: 'web_search_preview' } }, { tool_choice: { type: 'function', name: 'f' } }],
  'tools input[]': [
    input({ type: 'additional_tools', role: 'developer', tools: [{ type: 'function', name: 'f', parameters: {} }] }, { role: 'user', content: 'hi' }),
    input({ type: 'tool_search_output', tools: [{ type: 'function', name: 'f', parameters: {} }] }, { role: 'user', content: 'hi' }),
  ],
  'images input[]': [
    responsesUser([{ type: 'input_text', text: 'what is this' }, { type: 'input_image', image_url: PNG, detail: 'auto' }]),
    responsesUser([{ type: 'input_image', file_id: 'file-1', detail: 'auto' }]),
    input(
      { role: 'user', content: 'look' },
      { type: 'function_call', call_id: 'c1', name: 'shot', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_image', image_url: PNG }] },
    ),
    input(
      { role: 'user', content: 'look' },
      { type: 'custom_tool_call', call_id: 'c2', name: 'shot', input: '' },
      { type: 'custom_tool_call_output', call_id: 'c2', output: [{ type: 'input_image', image_url: PNG }] },
    ),
    input({ type: 'computer_call_output', call_id: 'c3', output: { type: 'computer_screenshot', image_url: PNG } }),
    responsesUser([{ type: 'input_file', file_data: PNG, filename: 'cat.png' }]),
    responsesUser([{ type: 'input_file', file_url: PNG }]),
  ],
  'images prompt.variables': [{ prompt: { id: 'pmpt_1', variables: { picture: { type: 'input_image', image_url: PNG } } } }],
  'reasoning reasoning': [{ reasoning: { effort: 'low' } }, { reasoning: { summary: 'auto' } }, { reasoning: {} }],
  'reasoning input[]': [input({ type: 'configuration_update', reasoning: { effort: 'high' } }, { role: 'user', content: 'hi' })],
};
const RESPONSES_OFF: readonly Body[] = [
  { stream: false },
  { tools: [] },
  { tool_choice: 'auto' },
  { tool_choice: 'none' },
  { reasoning: null },
  { reasoning: { effort: 'none' } },
  { reasoning: { effort: 'none', summary: 'auto' } },
  responsesUser([{ type: 'input_file', file_data: PDF, filename: 'a.pdf' }]),
  responsesUser([{ type: 'input_file', file_url: 'https://example.com/cat.png' }]),
  input({ type: 'configuration_update', reasoning: { effort: 'none' } }, { role: 'user', content: 'hi' }),
  { prompt: { id: 'pmpt_1', variables: { name: 'Ada', doc: { type: 'input_text', text: 'x' } } } },
];

const MESSAGES_BASE: Body = { model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
const IMAGE_BLOCK = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } };
const toolTurn = (content: unknown) => ({
  messages: [
    { role: 'user', content: 'look' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'shot', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content }] },
  ],
});
const MESSAGES: Examples = {
  'streaming stream': [{ stream: true }],
  'tools tools': [
    { tools: [{ name: 'f', input_schema: { type: 'object' } }] },
    { tools: [{ type: 'web_search_20250305', name: 'web_search' }] },
    { tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] },
    { tools: [{ type: 'bash_20250124', name: 'bash' }] },
    { tools: [{ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' }] },
    { tools: [{ type: 'computer_20250124', name: 'computer', display_width_px: 1024, display_height_px: 768 }] },
  ],
  'tools tool_choice': [{ tool_choice: { type: 'any' } }, { tool_choice: { type: 'tool', name: 'f' } }],
  'tools mcp_servers': [{ mcp_servers: [{ type: 'url', url: 'https://mcp.example.com/sse', name: 'docs' }] }],
  'images messages[].content': [
    user([{ type: 'text', text: 'what is this' }, IMAGE_BLOCK]),
    user([{ type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } }]),
    toolTurn([IMAGE_BLOCK]),
    user([{ type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'a' }, IMAGE_BLOCK] } }]),
    user([{ type: 'document', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }]),
    toolTurn([{ type: 'document', source: { type: 'content', content: [IMAGE_BLOCK] } }]),
  ],
  'images system': [{ system: [{ type: 'text', text: 'be brief' }, IMAGE_BLOCK] }],
  'reasoning thinking': [{ thinking: { type: 'enabled', budget_tokens: 1024 } }, { thinking: { type: 'adaptive' } }, { thinking: {} }],
  'reasoning output_config.effort': [{ output_config: { effort: 'high' } }, { output_config: { effort: 'low' } }],
};
const MESSAGES_OFF: readonly Body[] = [
  { stream: false },
  { tools: [] },
  { mcp_servers: [] },
  { tool_choice: { type: 'auto' } },
  { tool_choice: { type: 'none' } },
  { thinking: { type: 'disabled' } },
  { output_config: { effort: null } },
  user([{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQ=' } }]),
  toolTurn([{ type: 'text', text: 'no picture' }]),
  { system: [{ type: 'text', text: 'be brief' }] },
];

interface ProtocolCase {
  readonly name: 'chat' | 'responses' | 'messages';
  readonly table: readonly FeatureField[];
  readonly base: Body;
  readonly examples: Examples;
  readonly off: readonly Body[];
}
const PROTOCOLS: readonly ProtocolCase[] = [
  { name: 'chat', table: CHAT_FEATURES, base: CHAT_BASE, examples: CHAT, off: CHAT_OFF },
  { name: 'responses', table: RESPONSES_FEATURES, base: RESPONSES_BASE, examples: RESPONSES, off: RESPONSES_OFF },
  { name: 'messages', table: MESSAGES_FEATURES, base: MESSAGES_BASE, examples: MESSAGES, off: MESSAGES_OFF },
];

const rowKey = (row: FeatureField) => `${row.feature} ${row.field}`;
const featureOf = (key: string) => key.split(' ')[0] as Feature;

/** One case per body: protocol, the row it exercises, the body. */
const onCases = PROTOCOLS.flatMap((p) =>
  Object.entries(p.examples).flatMap(([key, bodies]) => bodies.map((extra, i) => ({ protocol: p, key, feature: featureOf(key), body: { ...p.base, ...extra }, i }))),
);
const offCases = PROTOCOLS.flatMap((p) => p.off.map((extra, i) => ({ protocol: p, body: { ...p.base, ...extra }, i })));

describe('feature tables', () => {
  it.each(PROTOCOLS)('$name: every row has example bodies, and every example names a row', (p) => {
    expect(Object.keys(p.examples).sort()).toEqual([...new Set(p.table.map(rowKey))].sort());
  });

  it.each(PROTOCOLS)('$name: the README lists every row', (p) => {
    const label = { chat: 'Chat', responses: 'Responses', messages: 'Messages' }[p.name];
    for (const row of p.table) expect(README).toContain(`| ${label} | \`${row.field}\` | ${row.feature} | ${row.when} |`);
  });

  it.each(onCases)('$protocol.name $key #$i turns on $feature and nothing else', ({ protocol, feature, body }) => {
    expect(featuresOf(protocol.table, body)).toEqual([feature]);
  });

  it.each(offCases)('$protocol.name off #$i turns nothing on', ({ protocol, body }) => {
    expect(featuresOf(protocol.table, body)).toEqual([]);
  });

  it('finds an image at the bottom of content nested to near the depth cap', () => {
    let content: unknown = [IMAGE_BLOCK];
    for (let i = 0; i < 120; i++) content = [{ type: 'tool_result', tool_use_id: `t${i}`, content }];
    expect(featuresOf(MESSAGES_FEATURES, { ...MESSAGES_BASE, ...user(content) })).toEqual(['images']);
  });
});

const KEYS = {
  everything: 'gw-feature-everything-0123456789',
  nothing: 'gw-feature-nothing-0123456789',
  ...Object.fromEntries(FEATURES.map((f) => [f, `gw-feature-without-${f}-0123456789`])),
} as Record<Feature | 'everything' | 'nothing', string>;

let upstream: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gw = await startGateway(
    testConfig(upstream.url, {
      keyGroups: {
        everything: { keys: [KEYS.everything] },
        nothing: { keys: [KEYS.nothing], features: [] },
        ...Object.fromEntries(FEATURES.map((f) => [`without-${f}`, { keys: [KEYS[f]], features: FEATURES.filter((g) => g !== f) }])),
      },
    }),
  );
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });

/** Sends `body` through the protocol's SDK and reads the whole answer (a stream to its end). */
async function send(protocol: ProtocolCase['name'], key: string, body: Body): Promise<void> {
  // The bodies carry fields the SDK types do not know (vendor switches, beta fields): sent as they are.
  const params = body as never;
  switch (protocol) {
    case 'chat': {
      const answer: unknown = await openai(key).chat.completions.create(params);
      if (body.stream === true) for await (const _ of answer as AsyncIterable<unknown>);
      return;
    }
    case 'responses': {
      const answer: unknown = await openai(key).responses.create(params);
      if (body.stream === true) for await (const _ of answer as AsyncIterable<unknown>);
      return;
    }
    case 'messages': {
      const answer: unknown = await anthropic(key).messages.create(params);
      if (body.stream === true) for await (const _ of answer as AsyncIterable<unknown>);
      return;
    }
  }
}

const FEATURE_WORDS: Record<Feature, string> = { tools: 'tools', images: 'image input', streaming: 'streaming', reasoning: 'reasoning/thinking' };

describe('a group without the feature is refused 403, whichever field asks for it', () => {
  it.each(onCases)('$protocol.name $key #$i', async ({ protocol, feature, body }) => {
    const err = await send(protocol.name, KEYS[feature], body).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(protocol.name === 'messages' ? Anthropic.PermissionDeniedError : OpenAI.PermissionDeniedError);
    const message = (err as Error).message;
    expect(message).toContain(`Key group 'without-${feature}' may not use ${FEATURE_WORDS[feature]}`);
    if (protocol.name === 'messages') expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
    else expect((err as InstanceType<typeof OpenAI.APIError>).type).toBe('permission_error');
    expect(upstream.received).toHaveLength(0);

    // The same body from a group with every feature goes through, and the refused group keeps being served.
    await send(protocol.name, KEYS.everything, body);
    await send(protocol.name, KEYS[feature], protocol.base);
    expect(upstream.received).toHaveLength(2);
  });
});

describe('a body that leaves every feature off passes from a group without any', () => {
  it.each(offCases)('$protocol.name off #$i', async ({ protocol, body }) => {
    await send(protocol.name, KEYS.nothing, body);
    expect(upstream.received).toHaveLength(1);
  });
});
