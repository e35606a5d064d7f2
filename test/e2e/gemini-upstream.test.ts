/**
 * The gemini provider kind through the real gateway: the OpenAI SDK (Chat, Responses) and the
 * Anthropic SDK call a Gemini 3 model on a fake Gemini API (fake-gemini.ts), whole and streamed,
 * through a multi-turn tool loop whose second turn Gemini refuses unless the thought signature of
 * its function call comes back on it, and count tokens with Gemini's own counter; a Gemini caller's
 * conversation begun on a Chat model reaches Gemini without the gateway's seals. What reaches Gemini:
 * its paths, the key in `x-goog-api-key` and no other credential, a body Gemini takes. The fake
 * itself is first checked against Google's own SDK, so that it is Gemini's behaviour the gateway is
 * held to.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI, type Content } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import type { Json } from '#src/translate/types.js';
import { fakeGemini, GEMINI_API_KEY, GEMINI_TEXT, type FakeGemini } from '../helpers/fake-gemini.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';

const MODEL = 'gemini-3-pro-preview';
const MODEL_PATH = `/v1beta/models/${MODEL}`;
const RESULT = 'sunny, 24C';

let upstream: FakeUpstream;
/** A DeepSeek-style Chat server, the model a Gemini caller's conversation begins on before it moves to Gemini. */
let chatUpstream: FakeUpstream;
let gemini: FakeGemini;
let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  chatUpstream = await startFakeUpstream();
  gw = await startGateway({
    providers: {
      google: { type: 'gemini', baseUrl: `${upstream.url}/v1beta`, apiKey: GEMINI_API_KEY, retries: 0 },
      local: { type: 'openai-compatible', baseUrl: `${chatUpstream.url}/v1`, retries: 0 },
    },
    models: { 'gemini-pro': { provider: 'google', upstreamModel: MODEL }, 'deepseek-r': { provider: 'local', upstreamModel: 'deepseek-reasoner' } },
    keyGroups: { dev: { keys: [GATEWAY_KEY] } },
  } as unknown as WrittenConfig);
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
  await chatUpstream.close();
});
beforeEach(() => {
  upstream.reset();
  gemini = fakeGemini({ apiKey: GEMINI_API_KEY });
  upstream.always(gemini.behaviour);
});

/** A tool as coding agents declare it: JSON Schema keywords Gemini's `parameters` refuses included. */
const WEATHER_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { city: { type: 'string', description: 'The city' } },
  required: ['city'],
  additionalProperties: false,
};

/** What reached Gemini for one call: its path, its key and no other credential, no model or stream in the body. */
function expectGeminiRequest(got: Received, method: string) {
  expect(got.url).toBe(`${MODEL_PATH}:${method}`);
  expect(got.headers['x-goog-api-key']).toBe(GEMINI_API_KEY);
  expect(got.headers.authorization).toBeUndefined();
  expect(got.headers['x-api-key']).toBeUndefined();
  expect(JSON.stringify(got.headers)).not.toContain(GATEWAY_KEY);
  expect(got.json).not.toHaveProperty('model');
  expect(got.json).not.toHaveProperty('stream');
}

/** The thought signature on the first function call sent back in turn 2, which the fake must have given for that call. */
function expectSignatureBack(got: Received) {
  const parts = ((got.json as Json).contents as Json[]).filter((c) => c.role === 'model').flatMap((c) => c.parts as Json[]);
  const call = parts.find((p) => p.functionCall !== undefined);
  expect(call, 'the function call is sent back').toBeDefined();
  expect(gemini.gave(call!.thoughtSignature, 'get_weather'), 'with the signature Gemini gave').toBe(true);
}

describe('the fake Gemini, to Google SDK directly', () => {
  const sdk = (key = GEMINI_API_KEY) => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: upstream.url, apiVersion: 'v1beta' } });
  const tools = [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather in a city', parametersJsonSchema: WEATHER_SCHEMA }] }];
  const user: Content = { role: 'user', parts: [{ text: 'Weather in Paris?' }] };

  it('answers text whole and streamed, the stream split over chunks with usage on the last', async () => {
    const whole = await sdk().models.generateContent({ model: MODEL, contents: 'hi' });
    expect(whole.text).toBe(GEMINI_TEXT);
    expect(whole.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    const chunks = [];
    for await (const chunk of await sdk().models.generateContentStream({ model: MODEL, contents: 'hi' })) chunks.push(chunk);
    expect(chunks.map((c) => c.candidates?.[0]?.content?.parts?.[0]?.text ?? '').join('')).toBe(GEMINI_TEXT);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.at(-1)!.usageMetadata?.candidatesTokenCount).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((c) => c.usageMetadata === undefined)).toBe(true);
    expect(upstream.last().url).toBe(`${MODEL_PATH}:streamGenerateContent?alt=sse`);
  });

  it('calls a function with a signature, refuses the turn back without it, and answers it with it', async () => {
    const first = await sdk().models.generateContent({ model: MODEL, contents: [user], config: { tools } });
    const modelTurn = first.candidates![0]!.content!;
    expect(first.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'Paris' } }]);
    expect(gemini.gave(modelTurn.parts![0]!.thoughtSignature, 'get_weather')).toBe(true);
    const response: Content = { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: RESULT } } }] };

    const unsigned = { ...modelTurn, parts: modelTurn.parts!.map(({ thoughtSignature: _s, ...p }) => p) };
    const refused = await sdk()
      .models.generateContent({ model: MODEL, contents: [user, unsigned, response], config: { tools } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(400);
    expect((refused as ApiError).message).toContain('Function call is missing a thought_signature in functionCall parts');
    expect((refused as ApiError).message).toContain('function call `default_api:get_weather` , position 2');

    const forged = { ...modelTurn, parts: modelTurn.parts!.map((p) => ({ ...p, thoughtSignature: Buffer.from('forged').toString('base64') })) };
    const corrupted = await sdk()
      .models.generateContent({ model: MODEL, contents: [user, forged, response], config: { tools } })
      .catch((e: unknown) => e);
    expect((corrupted as ApiError).message).toContain('Corrupted thought signature.');

    const second = await sdk().models.generateContent({ model: MODEL, contents: [user, modelTurn, response], config: { tools } });
    expect(second.text).toBe(GEMINI_TEXT);
  });

  it('refuses JSON Schema keywords outside its subset in parameters, naming the field at its path', async () => {
    // Sent as REST: the SDK itself moves such a schema to parametersJsonSchema, which takes any JSON Schema.
    const body = { contents: [user], tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: WEATHER_SCHEMA }] }] };
    const answer = await fetch(`${upstream.url}${MODEL_PATH}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': GEMINI_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(400);
    const { error } = (await answer.json()) as { error: { status: string; message: string } };
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe(`Invalid JSON payload received. Unknown name "$schema" at 'tools[0].function_declarations[0].parameters': Cannot find field.`);
  });

  it('refuses a key it does not know, as Google does (400 API_KEY_INVALID), and counts tokens', async () => {
    const err = await sdk('AIza-wrong').models.generateContent({ model: MODEL, contents: 'hi' }).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).message).toContain('API_KEY_INVALID');
    const count = await sdk().models.countTokens({ model: MODEL, contents: 'How many tokens is this?' });
    expect(count.totalTokens).toBe(Math.ceil('How many tokens is this?'.length / 4));
  });
});

describe('OpenAI Chat Completions on Gemini', () => {
  it('answers whole and streamed, at generateContent and streamGenerateContent?alt=sse', async () => {
    const whole = await openai.chat.completions.create({ model: 'gemini-pro', messages: [{ role: 'user', content: 'hi' }] });
    expect(whole.choices[0]!.message.content).toBe(GEMINI_TEXT);
    expect(whole.model).toBe('gemini-pro');
    expect(whole.usage?.prompt_tokens).toBeGreaterThan(0);
    expectGeminiRequest(upstream.last(), 'generateContent');

    const stream = openai.chat.completions.stream({ model: 'gemini-pro', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
    const deltas: string[] = [];
    stream.on('content', (delta) => deltas.push(delta));
    const done = await stream.finalChatCompletion();
    expect(done.choices[0]!.message.content).toBe(GEMINI_TEXT);
    expect(deltas.length).toBeGreaterThan(1);
    expect(done.usage?.completion_tokens).toBeGreaterThan(0);
    expectGeminiRequest(upstream.last(), 'streamGenerateContent?alt=sse');
  });

  it('completes a tool loop, the signature coming back in reasoning_details as OpenRouter-aware clients keep it', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: WEATHER_SCHEMA } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await openai.chat.completions.create({ model: 'gemini-pro', messages, tools });
    const message = first.choices[0]!.message;
    const call = message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect({ name: call.function.name, args: JSON.parse(call.function.arguments) as unknown }).toEqual({ name: 'get_weather', args: { city: 'Paris' } });

    const back = { ...message } as OpenAI.ChatCompletionAssistantMessageParam;
    const second = await openai.chat.completions.create({
      model: 'gemini-pro',
      messages: [...messages, back, { role: 'tool', tool_call_id: call.id, content: RESULT }],
      tools,
    });
    expect(second.choices[0]!.message.content).toBe(GEMINI_TEXT);
    expectSignatureBack(upstream.last());
  });
});

describe('OpenAI Responses on Gemini', () => {
  it.each([false, true])('completes a tool loop, the signature coming back in the output items (stream: %s)', async (stream) => {
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', description: 'Weather in a city', parameters: WEATHER_SCHEMA, strict: false }];
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const send = (items: OpenAI.Responses.ResponseInputItem[]) =>
      stream
        ? openai.responses.stream({ model: 'gemini-pro', input: items, tools, store: false }).finalResponse()
        : openai.responses.create({ model: 'gemini-pro', input: items, tools, store: false });
    const first = await send(input);
    const call = first.output.find((i) => i.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect({ name: call.name, args: JSON.parse(call.arguments) as unknown }).toEqual({ name: 'get_weather', args: { city: 'Paris' } });
    expectGeminiRequest(upstream.last(), stream ? 'streamGenerateContent?alt=sse' : 'generateContent');

    const second = await send([...input, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: RESULT }]);
    expect(second.output_text).toBe(GEMINI_TEXT);
    expectSignatureBack(upstream.last());
  });
});

describe('Anthropic Messages on Gemini', () => {
  it.each([false, true])('completes a tool loop, the signature coming back in the content blocks (stream: %s)', async (stream) => {
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather in a city', input_schema: WEATHER_SCHEMA as Anthropic.Tool.InputSchema }];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const send = (history: Anthropic.MessageParam[]) =>
      stream
        ? anthropic.messages.stream({ model: 'gemini-pro', max_tokens: 1024, messages: history, tools }).finalMessage()
        : anthropic.messages.create({ model: 'gemini-pro', max_tokens: 1024, messages: history, tools });
    const first = await send(messages);
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b) => b.type === 'tool_use')!;
    expect({ name: use.name, input: use.input }).toEqual({ name: 'get_weather', input: { city: 'Paris' } });
    expectGeminiRequest(upstream.last(), stream ? 'streamGenerateContent?alt=sse' : 'generateContent');

    const second = await send([
      ...messages,
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: RESULT }] },
    ]);
    // Gemini signs its text too: that signature comes as a thinking block of the gateway's, before the text.
    expect(second.content.filter((b) => b.type === 'text').map((b) => b.text)).toEqual([GEMINI_TEXT]);
    expect(second.model).toBe('gemini-pro');
    expectSignatureBack(upstream.last());
  });

  it("counts tokens with Gemini's own counter", async () => {
    const { data: counted, response } = await anthropic.messages
      .countTokens({
        model: 'gemini-pro',
        system: 'You are terse.',
        messages: [{ role: 'user', content: 'How many tokens is this?' }],
      })
      .withResponse();
    // Gemini's count, not the gateway's estimate.
    expect(response.headers.get('x-model-gateway-token-estimate')).toBeNull();
    const got = upstream.last();
    expect(got.url).toBe(`${MODEL_PATH}:countTokens`);
    expect(got.headers['x-goog-api-key']).toBe(GEMINI_API_KEY);
    // The request as a create would go, whole: the system instruction is counted too.
    expect(got.json).toMatchObject({ generateContentRequest: { model: `models/${MODEL}`, systemInstruction: { parts: [{ text: 'You are terse.' }] } } });
    // The fake's count of what it was sent, asked again.
    const answered = (await fetch(`${upstream.url}${MODEL_PATH}:countTokens`, {
      method: 'POST',
      headers: { 'x-goog-api-key': GEMINI_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(got.json),
    }).then((r) => r.json())) as { totalTokens: number };
    expect(counted.input_tokens).toBe(answered.totalTokens);
  });
});

describe('A Gemini caller on Gemini, after another model', () => {
  it("takes the gateway's seals out of the history: Gemini gets its documented value on the call instead", async () => {
    const google = new GoogleGenAI({ apiKey: GATEWAY_KEY, httpOptions: { baseUrl: gw.url } });
    const tools = [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather in a city', parametersJsonSchema: WEATHER_SCHEMA }] }];
    const user: Content = { role: 'user', parts: [{ text: 'Weather in Paris?' }] };
    chatUpstream.once((_req, res) =>
      sendJson(res, 200, {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'deepseek-reasoner',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              reasoning_content: 'Paris: call get_weather.',
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    );
    const first = await google.models.generateContent({ model: 'deepseek-r', contents: [user], config: { tools } });
    // As the Gemini CLI keeps a turn: without its thoughts, the reasoning riding in the gateway's seal.
    const turn: Content = { role: 'model', parts: first.candidates![0]!.content!.parts!.filter((p) => p.thought !== true) };
    expect(turn.parts!.some((p) => p.thoughtSignature?.startsWith('bWd3MS'))).toBe(true);
    const response: Content = { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: RESULT } } }] };

    // The user switches to Gemini: passthrough, which Gemini 3 would refuse with a signature it did not make.
    const second = await google.models.generateContent({ model: 'gemini-pro', contents: [user, turn, response], config: { tools } });
    expect(second.text).toBe(GEMINI_TEXT);
    const sent = upstream.last();
    expect(JSON.stringify(sent.json)).not.toContain('bWd3MS');
    const parts = ((sent.json as { contents: Json[] }).contents[1]!.parts as Json[]).filter((p) => p.functionCall !== undefined);
    expect(parts.map((p) => p.thoughtSignature)).toEqual(['skip_thought_signature_validator']);
  });
});
