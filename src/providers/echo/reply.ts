/**
 * What the echo provider answers: a pure function of the request body, the same for all
 * three protocols (only where each protocol keeps its messages and tools differs).
 *
 * Echo rules:
 * 1. Reply text: the last text part of the last `user` message, verbatim (Chat: string
 *    content or last `text` part; Messages: string content or last `text` block; Responses:
 *    an `input` string, or the last user `message` item's string content or last
 *    `input_text` part). When there is none, or it is empty: `(echo: no text)`.
 * 2. Tool results end a tool loop: when the conversation ends with a tool result (Chat
 *    `role:'tool'` message; Messages user turn holding `tool_result` blocks; Responses
 *    `function_call_output` / `custom_tool_call_output` item), the reply is the text
 *    `Tool result: <text>`, where <text> is the last result's string content or its text
 *    parts joined by "\n", cut to 2000 characters (code points). No tool is ever called
 *    after a tool result, so client tool loops end after one round. System/developer
 *    messages and Responses bookkeeping items (reasoning, additional_tools,
 *    configuration_update) after the result are ignored when deciding what came last.
 * 3. Otherwise the reply is ONE tool call instead of text when tools are offered and either
 *    `tool_choice` forces one (Chat `'required'` / `{type:'function', function:{name}}`;
 *    Responses `'required'` / `{type:'function', name}`; Messages `{type:'any'}` /
 *    `{type:'tool', name}`) or the reply text contains an offered tool's name as a whole
 *    word (case-sensitive; no letter, digit or `_` directly before or after it).
 *    `tool_choice` `'none'` (Messages `{type:'none'}`) disables tool calls; other forms
 *    count as `auto`. The tool: the named one (when offered), else the first offered tool
 *    whose name is in the text, else the first offered tool. Only client function tools
 *    count: Chat `type:'function'`; Responses `type:'function'`, plus functions nested in
 *    `type:'namespace'` tools (the call then carries `namespace`), also when offered in a
 *    Codex `additional_tools` input item; Messages tools with an `input_schema` and no
 *    versioned server-tool `type` (such as `web_search_20250305`).
 * 4. Arguments come from the tool's JSON Schema, required properties only: `const` → it;
 *    `enum` → its first value; string → the reply text; integer/number → `minimum` if
 *    given (rounded up for integers), else 0; boolean → false; array → []; object → the
 *    same rules over its required properties; anything else → null.
 */
import type { Protocol } from '../../protocols/types.js';
import { readConversation, type Conversation, type OfferedTool } from './conversation.js';
import { argumentsFromSchema } from './tool-args.js';

export type EchoReply =
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'tool';
      readonly name: string;
      /** Responses namespace tools only. */
      readonly namespace?: string;
      readonly input: Readonly<Record<string, unknown>>;
      /** `input` as a JSON string, the form Chat and Responses carry. */
      readonly arguments: string;
    };

export const NO_TEXT = '(echo: no text)';
export const TOOL_RESULT_PREFIX = 'Tool result: ';
export const MAX_TOOL_RESULT_CHARS = 2000;

export function echoReply(protocol: Protocol, body: Readonly<Record<string, unknown>>): EchoReply {
  const conversation = readConversation(protocol, body);
  if (conversation.toolResult !== undefined) {
    return { kind: 'text', text: TOOL_RESULT_PREFIX + truncate(conversation.toolResult, MAX_TOOL_RESULT_CHARS) };
  }
  const text = conversation.userText || NO_TEXT;
  const tool = pickTool(conversation, text);
  if (tool === undefined) return { kind: 'text', text };
  const input = argumentsFromSchema(tool.schema, text);
  return {
    kind: 'tool',
    name: tool.name,
    ...(tool.namespace === undefined ? {} : { namespace: tool.namespace }),
    input,
    arguments: JSON.stringify(input),
  };
}

function pickTool({ tools, toolChoice }: Conversation, text: string): OfferedTool | undefined {
  if (toolChoice.mode === 'none' || tools.length === 0) return undefined;
  if (toolChoice.mode === 'required' && toolChoice.name !== undefined) {
    const named = tools.find((t) => t.name === toolChoice.name);
    if (named !== undefined) return named;
  }
  const mentioned = tools.find((t) => mentions(text, t.name));
  if (mentioned !== undefined || toolChoice.mode === 'auto') return mentioned;
  return tools[0];
}

/** Whether `name` occurs in `text` with no letter, digit or `_` (any script) directly before or after it. */
export function mentions(text: string, name: string): boolean {
  if (name === '') return false;
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    if (!isWordChar(text[at - 1]) && !isWordChar(text[at + name.length])) return true;
  }
  return false;
}

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}_]/u.test(c);

/** The first `max` code points of `text` (never splits a surrogate pair). */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  for (let count = 0; count < max && end < text.length; count++) {
    end += (text.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
  }
  return text.slice(0, end);
}
