/**
 * The tiny requests `check --probe` sends, in each protocol's own shape, and how their
 * answers are read: a short reply, the same as a stream, and one offered tool that
 * `tool_choice` forces. Output is capped so a probe costs a few tokens.
 * @see https://platform.openai.com/docs/api-reference/chat/create, https://platform.openai.com/docs/api-reference/responses/create, https://docs.anthropic.com/en/api/messages
 */
import type { ProviderType } from '../config/types.js';
import { providerKind } from '../providers/kinds.js';
import { isObject } from '../protocols/shallow.js';
import type { Protocol } from '../protocols/types.js';
import type { SseEvent } from '../sse/parse.js';

/** OpenAI's Responses API refuses fewer than 16 output tokens. */
export const REPLY_MAX_TOKENS = 16;
/** A forced call of a one-argument tool fits in 16 tokens; the margin is for models that reason first. */
export const TOOL_MAX_TOKENS = 32;

export const PROBE_TOOL = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', description: 'City name' } },
    required: ['city'],
  },
} as const;

const PROMPT = 'Reply with one word: ok';
const TOOL_PROMPT = 'What is the weather in Paris?';

/** Chat's output limit field: OpenAI's API (and Azure's) refuses `max_tokens` for its newer models; compatible servers know only it. */
function chatLimit(type: ProviderType, n: number): Record<string, number> {
  return providerKind(type).dialect === 'openai' ? { max_completion_tokens: n } : { max_tokens: n };
}

function base(protocol: Protocol, type: ProviderType, model: string, prompt: string, maxTokens: number): Record<string, unknown> {
  switch (protocol) {
    case 'chat':
      return { model, messages: [{ role: 'user', content: prompt }], ...chatLimit(type, maxTokens) };
    case 'responses':
      return { model, input: prompt, max_output_tokens: maxTokens, store: false };
    case 'messages':
      return { model, max_tokens: maxTokens, messages: [{ role: 'user', content: prompt }] };
  }
}

export function replyBody(protocol: Protocol, type: ProviderType, model: string, stream: boolean): Record<string, unknown> {
  return { ...base(protocol, type, model, PROMPT, REPLY_MAX_TOKENS), ...(stream ? { stream: true } : {}) };
}

export function toolBody(protocol: Protocol, type: ProviderType, model: string): Record<string, unknown> {
  const { name, description, parameters } = PROBE_TOOL;
  const body = base(protocol, type, model, TOOL_PROMPT, TOOL_MAX_TOKENS);
  switch (protocol) {
    case 'chat':
      return {
        ...body,
        tools: [{ type: 'function', function: { name, description, parameters } }],
        tool_choice: { type: 'function', function: { name } },
      };
    case 'responses':
      return { ...body, tools: [{ type: 'function', name, description, parameters }], tool_choice: { type: 'function', name } };
    case 'messages':
      return { ...body, tools: [{ name, description, input_schema: parameters }], tool_choice: { type: 'tool', name } };
  }
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Whether a (non-streaming) answer calls the probe tool. */
export function callsTool(protocol: Protocol, json: unknown): boolean {
  if (!isObject(json)) return false;
  switch (protocol) {
    case 'chat':
      return list(json.choices).some((c) => isObject(c) && isObject(c.message) && list(c.message.tool_calls).length > 0);
    case 'responses':
      return list(json.output).some((item) => isObject(item) && item.type === 'function_call');
    case 'messages':
      return list(json.content).some((block) => isObject(block) && block.type === 'tool_use');
  }
}

/** Whether an answer stopped at the output limit (then a missing tool call proves nothing). */
export function cutShort(protocol: Protocol, json: unknown): boolean {
  if (!isObject(json)) return false;
  switch (protocol) {
    case 'chat':
      return list(json.choices).some((c) => isObject(c) && c.finish_reason === 'length');
    case 'responses':
      return json.status === 'incomplete';
    case 'messages':
      return json.stop_reason === 'max_tokens';
  }
}

/** The message of an in-band stream error (Anthropic `error`, Responses `response.failed`/`error`, a Chat `error` chunk). */
export function streamErrorIn(event: SseEvent): string | undefined {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    return undefined;
  }
  if (!isObject(data)) return undefined;
  const failed = event.event === 'error' || data.type === 'error' || data.type === 'response.failed' || (isObject(data.error) && !('choices' in data));
  if (!failed) return undefined;
  const inner = isObject(data.error) ? data.error : isObject(data.response) && isObject(data.response.error) ? data.response.error : data;
  return typeof inner.message === 'string' ? inner.message : 'the stream carried an error';
}
