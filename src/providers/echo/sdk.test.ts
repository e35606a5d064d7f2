/**
 * The echo provider as the official SDKs and real clients see it: a minimal node:http
 * stand-in for the gateway feeds each request to `send()` and writes the answer back.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import Anthropic from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ECHO_PROVIDER } from '../../../test/helpers/echo-config.js';
import type { Protocol } from '../../protocols/types.js';
import type { Operation, Provider } from '../types.js';
import { estimateInputTokens } from './tokens.js';
import { createEchoProvider } from './provider.js';

const ROUTES: Record<string, { protocol: Protocol; operation: Operation }> = {
  '/v1/responses': { protocol: 'responses', operation: 'create' },
  '/v1/chat/completions': { protocol: 'chat', operation: 'create' },
  '/v1/messages': { protocol: 'messages', operation: 'create' },
  '/v1/messages/count_tokens': { protocol: 'messages', operation: 'count_tokens' },
};

/** Every request body the stand-in received, in order. */
const received: Record<string, unknown>[] = [];

function standIn(provider: Provider): Server {
  return createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const route = ROUTES[(req.url ?? '').split('?')[0] ?? ''];
      if (req.method !== 'POST' || route === undefined) {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks);
      const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      received.push(json);
      const controller = new AbortController();
      res.on('close', () => controller.abort());
      const upstream = await provider.send({ ...route, headers: {}, body, json, signal: controller.signal });
      const headers = Object.fromEntries(Object.entries(upstream.headers).filter(([, v]) => v !== undefined));
      res.writeHead(upstream.status, headers);
      await pipeline(upstream.body, res);
    })().catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
}

const config = ECHO_PROVIDER;

let server: Server;
let url = '';
let openai: OpenAI;
let anthropic: Anthropic;
let anthropic0: Anthropic0;

beforeAll(async () => {
  server = standIn(createEchoProvider(config));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'x', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: url, apiKey: 'x', maxRetries: 0 });
  anthropic0 = new Anthropic0({ baseURL: url, apiKey: 'x', maxRetries: 0 });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  schema: {
    type: 'object' as const,
    properties: {
      city: { type: 'string' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      days: { type: 'integer', minimum: 1 },
      verbose: { type: 'boolean' },
    },
    required: ['city', 'unit', 'days'],
    additionalProperties: false,
  },
};

describe('openai SDK', () => {
  it('responses.create returns the input text as output_text', async () => {
    const response = await openai.responses.create({ model: 'gpt-test', input: 'Hello from the SDK' });
    expect(response.output_text).toBe('Hello from the SDK');
    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-test' });
    expect(response.id).toMatch(/^resp_echo[0-9a-f]{24}$/);
    expect(response.usage?.input_tokens).toBe(estimateInputTokens({ model: 'gpt-test', input: 'Hello from the SDK' }));
    expect(response._request_id).toMatch(/^req_echo/);
  });

  it('responses.stream().finalResponse() accumulates the text', async () => {
    const stream = openai.responses.stream({ model: 'gpt-test', input: [{ role: 'user', content: 'stream me, please' }] });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const response = await stream.finalResponse();
    expect(response.output_text).toBe('stream me, please');
    expect(response.status).toBe('completed');
    expect(deltas).toEqual(['stream ', 'me, ', 'please']);
  });

  it('responses.stream().finalResponse() accumulates a function call', async () => {
    const stream = openai.responses.stream({
      model: 'gpt-test',
      input: 'What is the weather? use get_weather',
      tools: [{ type: 'function', name: weatherTool.name, parameters: weatherTool.schema, strict: true }],
    });
    const response = await stream.finalResponse();
    expect(response.output).toHaveLength(1);
    const call = response.output[0];
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    if (call?.type !== 'function_call') throw new Error('expected a function call');
    expect(call.id).toMatch(/^fc_echo/);
    expect(call.call_id).toMatch(/^call_echo/);
    // strict tools are parsed by the SDK itself
    expect(call.parsed_arguments).toEqual({ city: 'What is the weather? use get_weather', unit: 'celsius', days: 1 });
  });

  it('chat.completions.create returns the last user text', async () => {
    const completion = await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'Say this back' },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('Say this back');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.id).toMatch(/^chatcmpl-echo/);
    expect(completion.usage?.total_tokens).toBe((completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0));
  });

  it('chat.completions.stream().finalChatCompletion() with a forced tool and include_usage', async () => {
    const stream = openai.chat.completions.stream({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Paris' }],
      tools: [{ type: 'function', function: { name: weatherTool.name, parameters: weatherTool.schema } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type).toBe('function');
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect(call.id).toMatch(/^call_echo/);
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris', unit: 'celsius', days: 1 });
    expect(completion.usage?.completion_tokens).toBe(Math.ceil(call.function.arguments.length / 4));
  });

  it('chat.completions.stream().finalChatCompletion() with text and include_usage', async () => {
    const stream = openai.chat.completions.stream({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'one two three' }],
      tools: [{ type: 'function', function: { name: weatherTool.name, parameters: weatherTool.schema } }],
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    stream.on('chunk', (chunk) => chunks.push(chunk));
    const completion = await stream.finalChatCompletion();
    expect(completion.choices[0]?.message.content).toBe('one two three');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ completion_tokens: 4 });
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  it('raw chat stream without include_usage has no usage chunk', async () => {
    const stream = await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'a b' }], stream: true });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.choices.length === 1 && c.usage === undefined)).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('a b');
  });
});

describe('anthropic SDK', () => {
  it('messages.create returns the text', async () => {
    const message = await anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 256,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'ignored' }, { type: 'text', text: 'Echo me' }] }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Echo me' }]);
    expect(message).toMatchObject({ role: 'assistant', model: 'claude-test', stop_reason: 'end_turn' });
    expect(message.id).toMatch(/^msg_echo/);
    expect(message._request_id).toMatch(/^req_echo/);
  });

  it('messages.stream().finalMessage() accumulates text and usage', async () => {
    const stream = anthropic.messages.stream({ model: 'claude-test', max_tokens: 256, messages: [{ role: 'user', content: 'streamed words here' }] });
    const texts: string[] = [];
    stream.on('text', (delta) => texts.push(delta));
    const message = await stream.finalMessage();
    expect(message.content).toMatchObject([{ type: 'text', text: 'streamed words here' }]);
    expect(texts).toEqual(['streamed ', 'words ', 'here']);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.output_tokens).toBe(5);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  it('messages.stream().finalMessage() parses a tool call input into an object', async () => {
    const stream = anthropic.messages.stream({
      model: 'claude-test',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Lyon' }],
      tools: [{ name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.schema }],
      tool_choice: { type: 'any' },
    });
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toHaveLength(1);
    expect(message.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Lyon', unit: 'celsius', days: 1 } });
    expect((message.content[0] as { id: string }).id).toMatch(/^toolu_echo/);
  });

  it('messages.countTokens returns the input estimate', async () => {
    const params = { model: 'claude-test', messages: [{ role: 'user' as const, content: 'count me' }] };
    const count = await anthropic.messages.countTokens(params);
    expect(count).toEqual({ input_tokens: estimateInputTokens(params) });
  });

  it('SDK 0.x accepts the stream too', async () => {
    const message = await anthropic0.messages
      .stream({ model: 'claude-test', max_tokens: 256, messages: [{ role: 'user', content: 'old sdk' }] })
      .finalMessage();
    expect(message.content).toMatchObject([{ type: 'text', text: 'old sdk' }]);
  });
});

const FIXTURES = new URL('../../../test/fixtures/clients/', import.meta.url).pathname;
const fixtureBody = (name: string): Record<string, unknown> =>
  (JSON.parse(readFileSync(`${FIXTURES}${name}.json`, 'utf8')) as { body: Record<string, unknown> }).body;

describe('real client requests (streaming)', () => {
  it.each([
    ['claude-code-2.1.330-messages-first-turn', 'run echo via bash'],
    ['claude-code-2.1.330-messages-tool-result', 'Tool result: hello-from-tool'],
    ['anthropic-sdk-1.12.0-messages-create', 'hi'],
  ])('%s', async (name, text) => {
    const body = { ...fixtureBody(name), stream: true };
    const events: string[] = [];
    // The body is sent as recorded: fields newer than the SDK types (role:'system', safeguards…) included.
    const stream = anthropic.messages.stream(body as unknown as Anthropic.MessageStreamParams);
    stream.on('streamEvent', (event) => events.push(event.type));
    const message = await stream.finalMessage();
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    expect(message.content).toMatchObject([{ type: 'text', text }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBe(estimateInputTokens(received.at(-1)));
  });

  it('claude-code count_tokens', async () => {
    const body = fixtureBody('claude-code-2.1.330-count-tokens');
    const count = await anthropic.messages.countTokens(body as unknown as Anthropic.MessageCountTokensParams);
    expect(count.input_tokens).toBe(estimateInputTokens(body));
    expect(count.input_tokens).toBeGreaterThan(100);
  });

  it.each([
    ['codex-0.169.0-responses-first-turn', 'run echo'],
    ['codex-0.169.0-responses-function-call-output', 'Tool result: Chunk ID: 98d9c1\nWall time: 0.0909 seconds\nProcess exited with code 0\nOriginal token count: 19\nOutput:\nhello-from-tool\n'],
    ['codex-0.169.0-responses-first-turn-default-model', 'say hi'],
    ['openai-7.57.0-responses-create', 'hi'],
  ])('%s', async (name, text) => {
    const body = { ...fixtureBody(name), stream: true };
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    const stream = openai.responses.stream(body as unknown as OpenAI.Responses.ResponseCreateParamsStreaming);
    stream.on('event', (event) => events.push(event));
    const response = await stream.finalResponse();
    expect(response.output_text).toBe(text);

    expect(events[0]?.type).toBe('response.created');
    const last = events.at(-1);
    expect(last?.type).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const added = events.flatMap((e) => (e.type === 'response.output_item.added' ? [e] : []));
    const done = events.flatMap((e) => (e.type === 'response.output_item.done' ? [e] : []));
    expect(added.length).toBeGreaterThan(0);
    expect(done.map((e) => [e.output_index, e.item.id])).toEqual(added.map((e) => [e.output_index, e.item.id]));
    if (last?.type !== 'response.completed') throw new Error('expected response.completed last');
    expect(last.response.output.map((item) => item.id)).toEqual(added.map((e) => e.item.id));
    expect(new Set(events.flatMap((e) => ('response' in e ? [e.response.id] : [])))).toEqual(new Set([response.id]));
    expect(last.response.usage?.input_tokens).toBe(estimateInputTokens(received.at(-1)));
  });
});
