/**
 * The tiny requests `check --probe` sends, and how their answers are read: a short reply, the
 * same as a stream, and one offered tool that the tool choice forces. Each request is made in the
 * intermediate form and encoded by the upstream protocol's codec, as a translated request would
 * be, and each answer is read back through the same codec; so a protocol's module is all a probe
 * needs of it. Output is capped so a probe costs a few tokens.
 */
import type { ProviderType } from '../config/types.js';
import type { Json } from '../protocols/json.js';
import { protocols } from '../protocols/registry.js';
import { isObject } from '../protocols/shallow.js';
import type { Protocol } from '../protocols/types.js';
import { providerKind } from '../providers/kinds.js';
import type { SseEvent } from '../sse/parse.js';
import { answerContext } from '../translate/context.js';
import type * as Ir from '../translate/ir.js';

/** OpenAI's Responses API refuses fewer than 16 output tokens. */
export const REPLY_MAX_TOKENS = 16;
/** A forced call of a one-argument tool fits in 16 tokens; the margin is for models that reason first. */
export const TOOL_MAX_TOKENS = 32;

export const PROBE_TOOL: Ir.Tool = {
  kind: 'function',
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', description: 'City name' } },
    required: ['city'],
  },
};

const PROMPT = 'Reply with one word: ok';
const TOOL_PROMPT = 'What is the weather in Paris?';

const clock = { now: Date.now, newId: (prefix: string) => `${prefix}probe` };

/**
 * A probe speaks the upstream's protocol itself: caller and upstream are the same, so nothing is
 * renamed and nothing added for callers of another protocol. The provider kind's dialect picks the
 * fields its servers take (Chat's output limit: `max_completion_tokens` for OpenAI, `max_tokens` for compatible servers).
 */
function encodingContext(protocol: Protocol, type: ProviderType, model: string): Ir.TranslateContext {
  return { ...answerContext(protocol, model, clock), upstreamDialect: providerKind(type).dialect };
}

/** Reading an answer needs no model name: what is looked at (tool calls, the stop reason, errors) does not carry it. */
const readingContext = (protocol: Protocol): Ir.TranslateContext => answerContext(protocol, '', clock);

function probeRequest(model: string, prompt: string, maxOutputTokens: number, stream: boolean, tool?: Ir.Tool): Ir.Request {
  return {
    model,
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
    tools: tool === undefined ? [] : [tool],
    ...(tool === undefined ? {} : { toolChoice: { type: 'tool', name: tool.name } }),
    maxOutputTokens,
    stream,
  };
}

export function replyBody(protocol: Protocol, type: ProviderType, model: string, stream: boolean): Json {
  const request = probeRequest(model, PROMPT, REPLY_MAX_TOKENS, stream);
  return protocols[protocol].codec.encodeRequest(request, encodingContext(protocol, type, model));
}

export function toolBody(protocol: Protocol, type: ProviderType, model: string): Json {
  const request = probeRequest(model, TOOL_PROMPT, TOOL_MAX_TOKENS, false, PROBE_TOOL);
  return protocols[protocol].codec.encodeRequest(request, encodingContext(protocol, type, model));
}

/**
 * A whole answer in the intermediate form, or undefined when the codec cannot read it. Decoders
 * throw for answers that are not answers (a failed response, no choice); whatever a provider sent,
 * the probe reports it as an outcome rather than stopping on it.
 */
function decoded(protocol: Protocol, json: unknown): Ir.Response | undefined {
  if (!isObject(json)) return undefined;
  try {
    return protocols[protocol].codec.decodeResponse(json, readingContext(protocol));
  } catch {
    return undefined;
  }
}

/** Whether a (non-streaming) answer calls a tool. */
export function callsTool(protocol: Protocol, json: unknown): boolean {
  return decoded(protocol, json)?.content.some((part) => part.type === 'tool_call') ?? false;
}

/** Whether an answer stopped at the output limit (then a missing tool call proves nothing). */
export function cutShort(protocol: Protocol, json: unknown): boolean {
  return decoded(protocol, json)?.stopReason === 'max_tokens';
}

/** The message of the first in-band error a streamed answer carried, as its protocol's stream decoder reads it. */
export function streamError(protocol: Protocol, events: readonly SseEvent[]): string | undefined {
  const decoder = protocols[protocol].codec.decodeStream(readingContext(protocol));
  for (const event of [...events.flatMap((e) => decoder.push(e)), ...decoder.end()]) {
    if (event.type === 'error') return event.message;
  }
  return undefined;
}
