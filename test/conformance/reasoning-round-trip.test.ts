/**
 * Reasoning round trips, for every caller → upstream pair, whole and streamed: the upstream model
 * reasons in its own form and calls a tool (turn 1); the caller's client sends its answer back as
 * real clients do, with the tool's result (turn 2); the upstream must get back exactly the reasoning
 * it gave. The fakes are strict as the real APIs are: Anthropic refuses a thinking block whose
 * signature is not its own, OpenAI refuses a function call item (by id) without its reasoning item,
 * a DeepSeek-style server refuses a tool-call turn without its `reasoning_content`, and Gemini 3
 * refuses a function call sent back without its thought signature (or with one it did not give).
 *
 * What a client sends back is its own wire shape, replayed as it came (Claude Code: the content
 * blocks; Codex: the output items; the Gemini CLI: the model's parts but its thoughts), except Chat clients, which rebuild the assistant message from the
 * fields they know: `content`, `tool_calls` and `reasoning_content` (the DeepSeek convention), and,
 * for clients of OpenRouter's dialect, `reasoning_details`. A Chat client without the latter cannot
 * bring back what only an encrypted or signed form holds: see `carried`.
 */
import type { ServerResponse } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { PROTOCOLS, type Protocol } from '#src/protocols/types.js';
import { codecs } from '#src/translate/codecs.js';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '#src/translate/types.js';
import { checkSignatures, GoogleRefusal, googleError, readGenerateRequest } from '../helpers/fake-gemini.js';
import { sendJson, } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import { GATEWAY_KEY, } from '../helpers/start-gateway.js';
import { foldGeminiStream, geminiParameters } from './callers.js';
import { contextFor } from './context.js';
import { answerWith, callOf, modelOn, protocolGateway, } from './upstreams.js';

/** Every pair: the passthrough ones too, where the gateway must leave reasoning alone. */
const PAIRS = PROTOCOLS.flatMap((caller) => PROTOCOLS.map((upstream) => [caller, upstream] as const));

const THOUGHT = 'The user wants the weather in Paris: call get_weather.';
/** Gemini's signature on its function call (base64, as Gemini's are). */
const GEMINI_SIGNATURE = Buffer.from('gemini-signature-1').toString('base64');
const QUESTION = 'Weather in Paris?';
const RESULT = 'sunny, 24C';

/** Each upstream's reasoning in its own form, before its tool call. */
const REASONING: Record<Protocol, Ir.ReasoningPart> = {
  chat: { type: 'reasoning', text: THOUGHT },
  responses: { type: 'reasoning', text: '', summary: [THOUGHT], encrypted: 'enc-opaque-1', id: 'rs_1' },
  messages: { type: 'reasoning', text: THOUGHT, signature: 'anthropic-signature-1' },
  // Gemini's is in its own wire form: see geminiTurnOne.
  gemini: { type: 'reasoning', text: THOUGHT },
};

/**
 * Gemini's turn 1 as Gemini 3 writes it (with `includeThoughts`): a thought summary part, then the call
 * with the signature on it; streamed, the thought and the call in chunks of their own.
 */
function geminiTurnOne(req: Received, res: ServerResponse): void {
  const thought = { text: THOUGHT, thought: true };
  const call = { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: GEMINI_SIGNATURE };
  const usageMetadata = { promptTokenCount: 20, candidatesTokenCount: 10, thoughtsTokenCount: 12, totalTokenCount: 42 };
  const chunk = (parts: Json[], last: boolean) => ({
    candidates: [{ content: { role: 'model', parts }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
    ...(last ? { usageMetadata } : {}),
    modelVersion: 'upstream-model',
    responseId: 'up-1',
  });
  if (!callOf('gemini', req).stream) {
    sendJson(res, 200, chunk([thought, call], true));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end([chunk([thought], false), chunk([call], true)].map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join(''));
}

const turnOne = (upstream: Protocol): Ir.Response => ({
  id: 'up-1',
  model: 'upstream-model',
  created: 1_700_000_000,
  content: [
    REASONING[upstream],
    { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function', ...(upstream === 'responses' ? { itemId: 'fc_1' } : {}) },
  ],
  stopReason: 'tool_calls',
  usage: { inputTokens: 20, outputTokens: 10 },
});

const turnTwo: Ir.Response = {
  id: 'up-2',
  model: 'upstream-model',
  created: 1_700_000_001,
  content: [{ type: 'text', text: 'It is sunny in Paris.' }],
  stopReason: 'end',
  usage: { inputTokens: 40, outputTokens: 8 },
};

/**
 * Whether the upstream gets its reasoning back through this caller. Chat clients that keep only
 * `reasoning_content` text lose OpenAI's encrypted reasoning and Anthropic's signature (the gateway
 * gives them in `reasoning_details`, which such clients drop), so those upstreams get the turn
 * without its reasoning (which they accept: the call goes without its item id, the thinking is
 * dropped and listed).
 */
const carried = (caller: Protocol, upstream: Protocol, keepsDetails: boolean): boolean => caller !== 'chat' || upstream === 'chat' || keepsDetails;

/** The reasoning the strict upstream found in turn 2, or an error message when it refuses the turn. */
function reasoningSentBack(upstream: Protocol, body: Json): { refused?: string; found?: Json } {
  switch (upstream) {
    case 'chat': {
      const messages = body.messages as Json[];
      const assistant = messages.find((m) => m.role === 'assistant' && Array.isArray(m.tool_calls));
      if (assistant?.reasoning_content !== undefined && assistant.reasoning_content !== THOUGHT) return { refused: 'altered reasoning_content' };
      // DeepSeek's thinking mode refuses a tool-call turn without it; a server without thinking would not.
      if (assistant?.reasoning_content === undefined) return { refused: 'The reasoning_content in the thinking mode must be passed back to the API.' };
      return { found: { reasoning_content: assistant.reasoning_content } };
    }
    case 'responses': {
      const input = body.input as Json[];
      const callAt = input.findIndex((i) => i.type === 'function_call');
      const item = input[callAt];
      const before = input[callAt - 1];
      const reasoning = input.find((i) => i.type === 'reasoning');
      if (reasoning !== undefined && (reasoning.encrypted_content !== 'enc-opaque-1' || reasoning.id !== 'rs_1')) return { refused: 'Invalid encrypted_content.' };
      if (item?.id !== undefined && before?.type !== 'reasoning') {
        return { refused: `Item '${String(item.id)}' of type 'function_call' was provided without its required 'reasoning' item.` };
      }
      return reasoning ? { found: { id: reasoning.id, encrypted_content: reasoning.encrypted_content } } : {};
    }
    case 'messages': {
      const assistant = (body.messages as Json[]).find((m) => m.role === 'assistant');
      const thinking = ((assistant?.content as Json[] | undefined) ?? []).find((b) => b.type === 'thinking');
      if (thinking !== undefined && (thinking.signature !== 'anthropic-signature-1' || thinking.thinking !== THOUGHT)) {
        return { refused: 'messages.1.content.0: Invalid `signature` in `thinking` block' };
      }
      return thinking ? { found: { thinking: thinking.thinking, signature: thinking.signature } } : {};
    }
    case 'gemini': {
      // Gemini 3's own checks (fake-gemini.ts): the call's signature back, or Google's stand-in for one it did not give.
      try {
        checkSignatures(readGenerateRequest(body).contents, new Map([[GEMINI_SIGNATURE, 'call:get_weather']]));
      } catch (err) {
        if (err instanceof GoogleRefusal) return { refused: err.message };
        throw err;
      }
      const parts = (body.contents as Json[]).flatMap((c) => (c.role === 'model' ? (c.parts as Json[]) : []));
      const call = parts.find((p) => p.functionCall !== undefined);
      return call?.thoughtSignature === GEMINI_SIGNATURE ? { found: { thoughtSignature: call.thoughtSignature } } : {};
    }
  }
}

const EXPECTED: Record<Protocol, Json> = {
  chat: { reasoning_content: THOUGHT },
  responses: { id: 'rs_1', encrypted_content: 'enc-opaque-1' },
  messages: { thinking: THOUGHT, signature: 'anthropic-signature-1' },
  gemini: { thoughtSignature: GEMINI_SIGNATURE },
};

function strict(upstream: Protocol) {
  return (req: Received, res: ServerResponse) => {
    const body = req.json as Json;
    const { refused } = reasoningSentBack(upstream, body);
    if (refused === undefined) {
      answerWith(upstream, turnTwo)(req, res);
      return;
    }
    if (upstream === 'gemini') googleError(res, new GoogleRefusal(400, 'INVALID_ARGUMENT', refused));
    else if (upstream === 'messages') sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: refused } });
    else sendJson(res, 400, { error: { message: refused, type: 'invalid_request_error', param: null, code: null } });
  };
}

// ------------------------------------------------------------------ the callers, as their clients replay

const TOOL: Ir.Tool = { kind: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const firstRequest: Ir.Request = { model: 'm', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: QUESTION }] }], tools: [TOOL], stream: false, maxOutputTokens: 512 };

const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as Json;
const openai = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
const anthropic = (url: string) => new Anthropic({ baseURL: url, apiKey: GATEWAY_KEY, maxRetries: 0 });
const google = (url: string) => new GoogleGenAI({ apiKey: GATEWAY_KEY, httpOptions: { baseUrl: url } });

/** The caller's SDK sends `body` (its wire shape; Gemini's `model` goes in the path) whole or streamed; the answer as the SDK parsed it. */
async function send(caller: Protocol, url: string, body: Json, stream: boolean, model: string): Promise<Json> {
  switch (caller) {
    case 'chat':
      return plain(
        await (stream
          ? openai(url).chat.completions.stream({ ...body, stream: true, stream_options: { include_usage: true } } as never).finalChatCompletion()
          : openai(url).chat.completions.create({ ...body, stream: false } as never)),
      );
    case 'responses':
      return plain(await (stream ? openai(url).responses.stream({ ...body, stream: true } as never).finalResponse() : openai(url).responses.create({ ...body, stream: false } as never)));
    case 'messages':
      return plain(await (stream ? anthropic(url).messages.stream(body as never).finalMessage() : anthropic(url).messages.create({ ...body, stream: false } as never)));
    case 'gemini': {
      const params = geminiParameters(model, body);
      if (stream) return foldGeminiStream(await google(url).models.generateContentStream(params));
      const { sdkHttpResponse: _headers, ...json } = plain(await google(url).models.generateContent(params));
      return json;
    }
  }
}

/** Turn 2 in the caller's wire shape: the first request, the answer sent back as the client does, the tool's result. */
function replay(caller: Protocol, first: Json, answer: Json, keepsDetails: boolean): Json {
  switch (caller) {
    case 'chat': {
      const message = ((answer.choices as Json[])[0]!.message ?? {}) as Json;
      const calls = message.tool_calls as Json[];
      const back = {
        role: 'assistant',
        content: message.content ?? null,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: c.function })),
        ...(typeof message.reasoning_content === 'string' ? { reasoning_content: message.reasoning_content } : {}),
        ...(keepsDetails && Array.isArray(message.reasoning_details) ? { reasoning_details: message.reasoning_details } : {}),
      };
      return { ...first, messages: [...(first.messages as Json[]), back, { role: 'tool', tool_call_id: calls[0]!.id, content: RESULT }] };
    }
    case 'responses': {
      const output = answer.output as Json[];
      const call = output.find((i) => i.type === 'function_call')!;
      const input = Array.isArray(first.input) ? (first.input as Json[]) : [{ role: 'user', content: first.input }];
      return { ...first, input: [...input, ...output, { type: 'function_call_output', call_id: call.call_id, output: RESULT }] };
    }
    case 'messages': {
      const content = answer.content as Json[];
      const call = content.find((b) => b.type === 'tool_use')!;
      const back = [{ role: 'assistant', content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: RESULT }] }];
      return { ...first, messages: [...(first.messages as Json[]), ...back] };
    }
    case 'gemini': {
      // As the Gemini CLI keeps a turn: the model's parts without its thoughts, the signatures on the parts they came on.
      const content = (answer.candidates as Json[])[0]!.content as Json;
      const parts = (content.parts as Json[]).filter((p) => p.thought !== true);
      const call = parts.find((p) => p.functionCall !== undefined)!.functionCall as Json;
      const response = { functionResponse: { ...(call.id !== undefined ? { id: call.id } : {}), name: call.name, response: { output: RESULT } } };
      return { ...first, contents: [...(first.contents as Json[]), { role: 'model', parts }, { role: 'user', parts: [response] }] };
    }
  }
}

/** The reasoning text the caller was shown in turn 1 (empty when it got none). */
function shownReasoning(caller: Protocol, answer: Json): string {
  // A Gemini caller is shown thought parts; what its codec reads back also opens seals, which this client cannot.
  if (caller === 'gemini') {
    const parts = (((answer.candidates as Json[])[0]!.content as Json).parts as Json[]) ?? [];
    return parts.map((p) => (p.thought === true ? String(p.text) : '')).join('');
  }
  const ir = codecs[caller].decodeResponse(answer, { ...contextFor(caller) });
  return ir.content.map((p) => (p.type === 'reasoning' ? p.text || (p.summary ?? []).join('') : '')).join('');
}

// ------------------------------------------------------------------ the suite

const suite = protocolGateway();

/** Chat callers twice: clients that send back `reasoning_content` only, and those that keep `reasoning_details` too. */
const CASES = PAIRS.flatMap(([caller, upstream]) =>
  (caller === 'chat' ? [false, true] : [false]).map((keepsDetails) => [caller, upstream, keepsDetails] as const),
);

describe.each(CASES)('%s -> %s (client keeps reasoning_details: %s)', (caller, upstream, keepsDetails) => {
  it.each([false, true])('the reasoning of turn 1 comes back on turn 2 (stream: %s)', async (stream) => {
    const first = codecs[caller].encodeRequest({ ...firstRequest, model: modelOn(upstream), stream }, { ...contextFor(caller), upstreamModel: modelOn(upstream) });
    suite.upstream.once(upstream === 'gemini' ? geminiTurnOne : answerWith(upstream, turnOne(upstream)));
    const answer = await send(caller, suite.gateway.url, first, stream, modelOn(upstream));
    // The caller is shown the reasoning (Chat: as reasoning_content, which the OpenAI SDK's stream helper keeps too).
    expect(shownReasoning(caller, answer)).toBe(THOUGHT);

    suite.upstream.once(strict(upstream));
    const second = await send(caller, suite.gateway.url, replay(caller, first, answer, keepsDetails), stream, modelOn(upstream));
    expect(codecs[caller].decodeResponse(second, contextFor(caller)).content).toEqual([{ type: 'text', text: 'It is sunny in Paris.' }]);
    const { found } = reasoningSentBack(upstream, suite.upstream.last().json as Json);
    if (carried(caller, upstream, keepsDetails)) expect(found).toEqual(EXPECTED[upstream]);
    else expect(found).toBeUndefined();
  });
});
