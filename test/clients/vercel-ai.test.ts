/**
 * The Vercel AI SDK (`ai`) through the real gateway, with each of its provider packages pointed at it
 * (ai-sdk-providers.ts): `generateText` and `streamText`, each with a tool the SDK runs itself, so that
 * the SDK makes a second call carrying the tool call and the tool's result. Every package runs against
 * an upstream of every protocol: its own (passthrough) and the others (translated). The fake upstream
 * answers in its own protocol (tool-loop-upstream.ts). The AI SDK validates every answer and stream
 * event against its own schemas, stricter than the official SDKs', so a field the gateway writes with
 * the wrong type fails here.
 */
import { generateText, stepCountIs, streamText, tool, type LanguageModel, type LanguageModelUsage } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PROTOCOLS, type Protocol } from '#src/protocols/types.js';
import { GATEWAY_KEY, } from '../helpers/start-gateway.js';
import { modelOn, protocolGateway, } from '../conformance/upstreams.js';
import { aiSdkProviders } from './ai-sdk-providers.js';
import { FINAL_TEXT, finalAnswer, receivedRequest, toolCallAnswer, toolLoop, WEATHER_CALL } from './tool-loop-upstream.js';


/** Where the upstream of each protocol is called, by a run that streams or not: Gemini's path names the model and the method. */
const UPSTREAM_PATHS: Record<Protocol, (stream: boolean) => string> = {
  chat: () => '/v1/chat/completions',
  responses: () => '/v1/responses',
  messages: () => '/v1/messages',
  gemini: (stream) => `/v1beta/models/upstream-model:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
};

/** What the SDK's tool returns; it must reach the second upstream request. */
const WEATHER = { city: 'Paris', celsius: 18, sky: 'sunny' };

const suite = protocolGateway();

const CASES = aiSdkProviders.flatMap((provider) =>
  PROTOCOLS.map((upstream) => ({
    provider,
    upstream,
    route: provider.caller === upstream ? 'native' : 'translated',
  })),
);

/** The calls the SDK's tool received. */
function weatherTool(calls: unknown[]) {
  return tool({
    description: 'Current weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async (input) => {
      calls.push(input);
      return WEATHER;
    },
  });
}

/** Each way the SDK is run, and whether it streams. */
const STREAMS = { generateText: false, streamText: true } as const;

const RUNS = {
  generateText: async (model: LanguageModel, calls: unknown[]) => {
    const result = await generateText({
      model,
      prompt: 'Weather in Paris?',
      tools: { get_weather: weatherTool(calls) },
      stopWhen: stepCountIs(3),
      // The Anthropic package asks for 4096 and warns when it does not know the model.
      maxOutputTokens: 256,
      maxRetries: 0,
    });
    return { text: result.text, steps: result.steps, totalUsage: result.totalUsage };
  },
  streamText: async (model: LanguageModel, calls: unknown[]) => {
    const errors: unknown[] = [];
    const result = streamText({
      model,
      prompt: 'Weather in Paris?',
      tools: { get_weather: weatherTool(calls) },
      stopWhen: stepCountIs(3),
      // The Anthropic package asks for 4096 and warns when it does not know the model.
      maxOutputTokens: 256,
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    // The stream must be read to its end for the steps to run; an error is only reported to onError.
    await result.consumeStream();
    if (errors.length > 0) throw errors[0];
    return { text: await result.text, steps: await result.steps, totalUsage: await result.totalUsage };
  },
} as const;

describe.each(Object.keys(RUNS) as (keyof typeof RUNS)[])('%s', (run) => {
  it.each(CASES)('$provider.name → $upstream upstream ($route)', async ({ provider, upstream }) => {
    suite.upstream.always(toolLoop(upstream));
    const calls: unknown[] = [];

    const result = await RUNS[run](provider.model(suite.gateway.url, GATEWAY_KEY, modelOn(upstream)), calls);

    // The text of the second answer, after the SDK ran the tool the first one called.
    expect(result.text).toBe(FINAL_TEXT);
    expect(result.steps).toHaveLength(2);
    const [first, second] = result.steps;
    expect(first!.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: c.input }))).toEqual([
      { id: WEATHER_CALL.id, name: WEATHER_CALL.name, input: WEATHER_CALL.input },
    ]);
    expect(calls).toEqual([WEATHER_CALL.input]);
    expect(first!.toolResults.map((r) => r.output)).toEqual([WEATHER]);
    expect(first!.finishReason).toBe('tool-calls');
    expect(second!.finishReason).toBe('stop');

    // Each step's usage, and their sum.
    const tokens = (u: LanguageModelUsage) => ({ input: u.inputTokens, output: u.outputTokens });
    expect(tokens(first!.usage)).toEqual({ input: toolCallAnswer.usage.inputTokens, output: toolCallAnswer.usage.outputTokens });
    expect(tokens(second!.usage)).toEqual({ input: finalAnswer.usage.inputTokens, output: finalAnswer.usage.outputTokens });
    expect(tokens(result.totalUsage)).toEqual({
      input: toolCallAnswer.usage.inputTokens + finalAnswer.usage.inputTokens,
      output: toolCallAnswer.usage.outputTokens + finalAnswer.usage.outputTokens,
    });

    // The upstream received two requests in its own protocol; the second carries the call and the tool's result.
    const path = UPSTREAM_PATHS[upstream](STREAMS[run]);
    expect(suite.upstream.received.map((r) => r.url)).toEqual([path, path]);
    const followUp = receivedRequest(upstream, suite.upstream.received[1]!.json);
    const parts = followUp.messages.flatMap((m) => m.content.map((p) => ({ role: m.role, part: p })));
    const callPart = parts.find((p) => p.part.type === 'tool_call');
    expect(callPart?.role).toBe('assistant');
    expect(callPart?.part).toMatchObject({ id: WEATHER_CALL.id, name: WEATHER_CALL.name });
    expect(JSON.parse(callPart?.part.type === 'tool_call' ? callPart.part.arguments : 'null')).toEqual(WEATHER_CALL.input);
    const resultPart = parts.find((p) => p.part.type === 'tool_result')?.part;
    expect(resultPart).toMatchObject({ type: 'tool_result', callId: WEATHER_CALL.id });
    const resultText = resultPart?.type === 'tool_result' ? resultPart.content.map((c) => (c.type === 'text' ? c.text : '')).join('') : '';
    expect(JSON.parse(resultText)).toEqual(WEATHER);
  });
});
