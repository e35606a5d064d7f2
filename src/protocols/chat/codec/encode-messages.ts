/**
 * IR system prompt and messages → Chat `messages` for an upstream.
 * - The system prompt is one leading `system` message (`system` rather than
 *   `developer`: OpenAI maps it for reasoning models, and local servers know only it).
 * - Mid-conversation system messages stay in place: as `system` messages for
 *   OpenAI; for compatible servers as user text, because many chat templates
 *   reject a system message that is not first. Never hoisted into the leading
 *   one: a system message added by a later turn (Claude Code adds one each turn)
 *   would change the start of the prompt, and with it every prefix cache.
 * - Tool results become one `tool` message each, right after the assistant
 *   message with the calls and before the rest of that user turn.
 * @see README.md, "Translation" › "What maps to what"
 */
import type { AssistantPart, ImagePart, FilePart, Message, TextPart, ToolCallPart, UserPart } from '../../../translate/ir.js';
import { upstreamToolName } from '../../../translate/common/tool-names.js';
import { customInputToArguments } from '../../../translate/common/tool-args.js';
import { joinedText, toolResultMessage, userContent, type EncodeState } from './encode-content.js';
import { warn, type Json } from './read.js';
import { append } from '../../../translate/common/append.js';

function toolCall(part: ToolCallPart, enc: EncodeState): Json {
  const name = upstreamToolName(enc.ctx, {
    name: part.name,
    kind: part.kind,
    ...(part.namespace !== undefined ? { namespace: part.namespace } : {}),
  });
  // Custom tools go upstream as a function stand-in taking `{input}`; servers that parse history need JSON.
  const args = part.kind === 'custom' ? customInputToArguments(part.arguments) : part.arguments.trim() === '' ? '{}' : part.arguments;
  if (enc.compatible && part.cacheControl !== undefined) warn(enc.ctx, 'cache_control');
  return { id: part.id, type: 'function', function: { name, arguments: args } };
}

/** The text a reasoning part shows: its summaries (Responses), then its text, a blank line apart. */
export const reasoningText = (p: { readonly text: string; readonly summary?: readonly string[] }): string =>
  [...(p.summary ?? []), p.text].filter((t) => t !== '').join('\n\n');

function assistantMessage(parts: readonly AssistantPart[], enc: EncodeState): Json {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const details: Json[] = [];
  const calls: Json[] = [];
  for (const p of parts) {
    switch (p.type) {
      case 'text':
        if (enc.compatible && p.cacheControl !== undefined) warn(enc.ctx, 'cache_control');
        texts.push(p.text);
        break;
      // Chat assistant history has no refusal slot that every server reads: the text stays as content.
      case 'refusal':
        texts.push(p.text);
        break;
      case 'reasoning':
        // DeepSeek/vLLM convention: earlier reasoning rides along as `reasoning_content`; OpenAI has no field for it.
        if (!enc.compatible || p.signature !== undefined || p.redacted !== undefined || p.encrypted !== undefined) {
          warn(enc.ctx, 'reasoning history');
        }
        if (enc.compatible && reasoningText(p) !== '') reasoning.push(reasoningText(p));
        // OpenRouter's entries go back as they came: they hold what its models check (signatures, encrypted data).
        if (enc.compatible && p.details !== undefined) append(details, p.details);
        break;
      case 'tool_call':
        calls.push(toolCall(p, enc));
        break;
    }
  }
  const text = texts.filter((t) => t !== '').join('\n\n');
  return {
    role: 'assistant',
    // `null` is the documented value next to tool calls; an assistant message with neither needs a string.
    content: text !== '' ? text : calls.length > 0 ? null : '',
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(reasoning.length > 0 ? { reasoning_content: reasoning.join('\n\n') } : {}),
    ...(details.length > 0 ? { reasoning_details: details } : {}),
  };
}

function userMessages(parts: readonly UserPart[], enc: EncodeState): Json[] {
  const out: Json[] = [];
  const rest: (TextPart | ImagePart | FilePart)[] = [];
  for (const p of parts) {
    if (p.type === 'tool_result') {
      const { message, moved } = toolResultMessage(p, enc);
      out.push(message);
      append(rest, moved);
    }
  }
  for (const p of parts) if (p.type !== 'tool_result') rest.push(p);
  if (rest.length > 0) out.push({ role: 'user', content: userContent(rest, enc) });
  return out;
}

/**
 * For compatible servers: each mid-conversation system message joins the user message before it
 * (some servers refuse two user messages in a row), or is a user message of its own. It depends
 * only on what comes before it, so a later turn leaves it as it was.
 */
function systemAsUserText(messages: readonly Message[], enc: EncodeState): readonly Message[] {
  if (!messages.some((m) => m.role === 'system')) return messages;
  warn(enc.ctx, 'mid-conversation system message as user text');
  const out: Message[] = [];
  /** The content of the last message out when it is a user message, which system text joins. */
  let joined: UserPart[] | undefined;
  for (const m of messages) {
    if (m.role === 'assistant') {
      joined = undefined;
      out.push(m);
      continue;
    }
    if (m.role === 'user' || joined === undefined) {
      joined = [];
      out.push({ role: 'user', content: joined });
    }
    append(joined, m.content);
  }
  return out;
}

export function encodeMessages(system: readonly TextPart[], messages: readonly Message[], enc: EncodeState): Json[] {
  const out: Json[] = [];
  for (const m of enc.compatible ? systemAsUserText(messages, enc) : messages) {
    switch (m.role) {
      case 'system':
        out.push({ role: 'system', content: joinedText(m.content, enc) });
        break;
      case 'user':
        append(out, userMessages(m.content, enc));
        break;
      case 'assistant':
        out.push(assistantMessage(m.content, enc));
        break;
    }
  }
  return system.length > 0 ? [{ role: 'system', content: joinedText(system, enc) }, ...out] : out;
}
