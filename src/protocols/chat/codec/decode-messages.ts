/**
 * Chat `messages` → IR system prompt and messages.
 * - Leading `system`/`developer` messages become the IR system prompt; later
 *   ones stay in place as IR `system` messages.
 * - Consecutive `tool` messages become one IR user message of tool results, in
 *   order (the shape Anthropic needs).
 * - The deprecated `function_call` / `function` role pair maps onto tool calls
 *   and results with generated call ids.
 * - A generated call id is made from where the call sits in `messages`, never
 *   drawn fresh: the same history must give the same upstream request on every
 *   turn, or the upstream's prompt cache misses from that call on.
 */
import { invalidRequest } from '../../../errors.js';
import type { AssistantPart, Message, TextPart, ToolKind, ToolResultPart, TranslateContext } from '../../../translate/ir.js';
import { decodeTextContent, decodeUserContent } from './decode-content.js';
import { isObject, obj, objects, str, warn, type Json } from './read.js';
import { readDetails } from './reasoning-details.js';
import { openDetails } from './sealed-details.js';
import { append } from '../../../translate/common/append.js';

export interface DecodedMessages {
  readonly system: TextPart[];
  readonly messages: Message[];
}

interface State {
  readonly ctx: TranslateContext;
  /** Call id → the kind of tool it called, so results of custom calls say so. */
  readonly callKinds: Map<string, ToolKind>;
  /** Legacy `function_call`s have no id: the ids given to them, per function name, waiting for their result. */
  readonly legacyCalls: Map<string, IdQueue>;
  /** The index in `messages` of the message being read, which generated ids are made from. */
  position: number;
}

/** The id for a call without one: the `k`th call of the message at `state.position`. */
const positionalId = (state: State, k = 0): string => `call_m${state.position}_${k}`;

/** First in, first out; taking reads at `head` rather than shifting, so a long history costs one step per call. */
interface IdQueue {
  readonly ids: string[];
  head: number;
}

function decodeToolCalls(m: Json, state: State): AssistantPart[] {
  const calls: AssistantPart[] = [];
  for (const [k, call] of objects(m.tool_calls).entries()) {
    const id = str(call.id) ?? positionalId(state, k);
    if (call.type === 'custom') {
      const custom = obj(call.custom);
      calls.push({ type: 'tool_call', id, name: str(custom.name) ?? '', arguments: str(custom.input) ?? '', kind: 'custom' });
      state.callKinds.set(id, 'custom');
    } else {
      const fn = obj(call.function);
      calls.push({ type: 'tool_call', id, name: str(fn.name) ?? '', arguments: str(fn.arguments) ?? '', kind: 'function' });
      state.callKinds.set(id, 'function');
    }
  }
  if (isObject(m.function_call)) {
    const name = str(m.function_call.name) ?? '';
    const id = positionalId(state, calls.length);
    const queue = state.legacyCalls.get(name);
    if (queue) queue.ids.push(id);
    else state.legacyCalls.set(name, { ids: [id], head: 0 });
    calls.push({ type: 'tool_call', id, name, arguments: str(m.function_call.arguments) ?? '', kind: 'function' });
  }
  return calls;
}

function decodeAssistant(m: Json, state: State): AssistantPart[] {
  const parts: AssistantPart[] = [];
  // Not an OpenAI field: DeepSeek, vLLM and others return `reasoning_content` (OpenRouter `reasoning`), and clients send it back.
  const reasoning = str(m.reasoning_content) ?? str(m.reasoning);
  // OpenRouter clients send `reasoning_details` back as they got them; the gateway's own entries hold
  // reasoning `reasoning_content` cannot (sealed-details.ts), whose text it then only repeats.
  const details = readDetails(m.reasoning_details);
  const opened = details ? openDetails(details, state.ctx) : undefined;
  if (opened?.sealed) append(parts, opened.parts);
  else if (reasoning || details) parts.push({ type: 'reasoning', text: reasoning ?? '', ...(details ? { details } : {}) });
  if (typeof m.content === 'string') {
    if (m.content !== '') parts.push({ type: 'text', text: m.content });
  } else {
    for (const part of objects(m.content)) {
      if (part.type === 'text' && typeof part.text === 'string') {
        parts.push({ type: 'text', text: part.text, ...(isObject(part.cache_control) ? { cacheControl: part.cache_control } : {}) });
      } else if (part.type === 'refusal' && typeof part.refusal === 'string') {
        parts.push({ type: 'refusal', text: part.refusal });
      } else warn(state.ctx, `${String(part.type)} content part`);
    }
  }
  if (typeof m.refusal === 'string' && m.refusal !== '') parts.push({ type: 'refusal', text: m.refusal });
  if (m.audio != null) warn(state.ctx, 'audio history');
  append(parts, decodeToolCalls(m, state));
  return parts;
}

function decodeToolResult(m: Json, index: number, state: State): ToolResultPart {
  let callId = str(m.tool_call_id);
  if (m.role === 'function') {
    const name = str(m.name) ?? '';
    const queue = state.legacyCalls.get(name);
    callId = queue && queue.head < queue.ids.length ? queue.ids[queue.head++]! : positionalId(state);
  }
  if (callId === undefined) {
    throw invalidRequest(`Missing required parameter: 'messages[${index}].tool_call_id'.`, `messages[${index}].tool_call_id`);
  }
  const kind = state.callKinds.get(callId);
  return {
    type: 'tool_result',
    callId,
    content: m.content == null ? [] : decodeUserContent(m.content, state.ctx),
    ...(kind === 'custom' ? { kind } : {}),
  };
}

export function decodeMessages(raw: readonly Json[], ctx: TranslateContext): DecodedMessages {
  const state: State = { ctx, callKinds: new Map(), legacyCalls: new Map(), position: 0 };
  const system: TextPart[] = [];
  const messages: Message[] = [];
  let leading = true;
  /** The tool results of the current run of `tool` messages (the content of the last IR message). */
  let results: ToolResultPart[] | undefined;

  raw.forEach((m, index) => {
    state.position = index;
    const role = m.role;
    if (role !== 'tool' && role !== 'function') results = undefined;
    if (typeof m.name === 'string' && role !== 'function') warn(ctx, 'message name');
    switch (role) {
      case 'system':
      case 'developer': {
        const content = decodeTextContent(m.content, ctx);
        if (leading) append(system, content);
        else messages.push({ role: 'system', content });
        return;
      }
      case 'user':
        messages.push({ role: 'user', content: decodeUserContent(m.content, ctx) });
        break;
      case 'assistant': {
        const content = decodeAssistant(m, state);
        // An empty assistant turn says nothing, and Anthropic rejects one.
        if (content.length > 0) messages.push({ role: 'assistant', content });
        break;
      }
      case 'tool':
      case 'function': {
        const result = decodeToolResult(m, index, state);
        if (results) results.push(result);
        else {
          results = [result];
          messages.push({ role: 'user', content: results });
        }
        break;
      }
      default:
        throw invalidRequest(`Invalid value for 'messages[${index}].role': '${String(role)}'.`, `messages[${index}].role`);
    }
    leading = false;
  });
  return { system, messages };
}
