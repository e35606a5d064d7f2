/**
 * Reads what the echo provider needs from a request body of any of the protocols:
 * the last user text, a trailing tool result, the client function tools on offer and the
 * tool choice. Bodies are only shallowly validated upstream, so everything is narrowed here.
 */
import { field, fieldAt, objectsAt } from '../../protocols/gemini/fields.js';
import type { Protocol } from '../../protocols/types.js';

/** A client function tool the echo provider may "call". */
export interface OfferedTool {
  readonly name: string;
  /** Responses `namespace` tools: the namespace the nested function belongs to. */
  readonly namespace?: string;
  /** The JSON Schema of the arguments (`parameters` / `input_schema`), unvalidated. */
  readonly schema: unknown;
}

export type ToolChoice =
  | { readonly mode: 'auto' }
  | { readonly mode: 'none' }
  /** A tool must be called; `name` when the request names one. */
  | { readonly mode: 'required'; readonly name?: string };

export interface Conversation {
  /** The last text part of the last user message, if it has one. */
  readonly userText: string | undefined;
  /** Set when the conversation ends with a tool result: that result's text. */
  readonly toolResult: string | undefined;
  readonly tools: readonly OfferedTool[];
  readonly toolChoice: ToolChoice;
}

type Body = Readonly<Record<string, unknown>>;

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const records = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter(isRecord) : [];

const stringOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
/** Not `set.has(String(value))`: a client's `{"toString": {}}` cannot be made a string, and would throw. */
const isOneOf = (set: ReadonlySet<string>, value: unknown): boolean => typeof value === 'string' && set.has(value);

const toolChoice = (none: boolean, required: boolean, name: string | undefined): ToolChoice =>
  none ? { mode: 'none' } : name !== undefined ? { mode: 'required', name } : required ? { mode: 'required' } : { mode: 'auto' };

/** The `text` of the last part whose `type` is one of `types`. */
const lastTextPart = (parts: unknown, types: ReadonlySet<string>): string | undefined => {
  const texts = records(parts).filter((p) => isOneOf(types, p.type) && typeof p.text === 'string');
  return stringOf(texts.at(-1)?.text);
};

/** A tool result's content: a string, or its text parts joined by newlines. */
const resultText = (content: unknown, types: ReadonlySet<string>): string =>
  typeof content === 'string'
    ? content
    : records(content)
        .filter((p) => isOneOf(types, p.type) && typeof p.text === 'string')
        .map((p) => String(p.text))
        .join('\n');

// System and developer turns can come after the user turn (Claude Code sends a
// mid-conversation system message last), so they never count as "the last message".
const INSTRUCTION_ROLES: ReadonlySet<string> = new Set(['system', 'developer']);

const CHAT_TEXT: ReadonlySet<string> = new Set(['text']);

function readChat(body: Body): Conversation {
  const messages = records(body.messages);
  const last = messages.filter((m) => !isOneOf(INSTRUCTION_ROLES, m.role)).at(-1);
  const lastUser = messages.filter((m) => m.role === 'user').at(-1);
  const tools = records(body.tools).flatMap((tool): OfferedTool[] => {
    const fn = tool.function;
    if (tool.type !== 'function' || !isRecord(fn) || typeof fn.name !== 'string') return [];
    return [{ name: fn.name, schema: fn.parameters }];
  });
  const choice = body.tool_choice;
  const named = isRecord(choice) && choice.type === 'function' && isRecord(choice.function) ? stringOf(choice.function.name) : undefined;
  return {
    userText: typeof lastUser?.content === 'string' ? lastUser.content : lastTextPart(lastUser?.content, CHAT_TEXT),
    toolResult: last !== undefined && (last.role === 'tool' || last.role === 'function') ? resultText(last.content, CHAT_TEXT) : undefined,
    tools,
    toolChoice: toolChoice(choice === 'none', choice === 'required', named),
  };
}

const MESSAGES_TEXT: ReadonlySet<string> = new Set(['text']);

function readMessages(body: Body): Conversation {
  const messages = records(body.messages);
  const last = messages.filter((m) => !isOneOf(INSTRUCTION_ROLES, m.role)).at(-1);
  const lastUser = messages.filter((m) => m.role === 'user').at(-1);
  const results = last?.role === 'user' ? records(last.content).filter((b) => b.type === 'tool_result') : [];
  const lastResult = results.at(-1);
  // Server tools carry a versioned `type` (`web_search_20250305`) and no `input_schema`.
  const tools = records(body.tools).flatMap((tool): OfferedTool[] => {
    const clientTool = tool.type === undefined || tool.type === 'custom';
    if (!clientTool || typeof tool.name !== 'string' || !isRecord(tool.input_schema)) return [];
    return [{ name: tool.name, schema: tool.input_schema }];
  });
  const choice = isRecord(body.tool_choice) ? body.tool_choice : {};
  const named = choice.type === 'tool' ? stringOf(choice.name) : undefined;
  return {
    userText: typeof lastUser?.content === 'string' ? lastUser.content : lastTextPart(lastUser?.content, MESSAGES_TEXT),
    toolResult: lastResult === undefined ? undefined : resultText(lastResult.content, MESSAGES_TEXT),
    tools,
    toolChoice: toolChoice(choice.type === 'none', choice.type === 'any', named),
  };
}

const RESPONSES_USER_TEXT: ReadonlySet<string> = new Set(['input_text']);
const RESPONSES_RESULT_TEXT: ReadonlySet<string> = new Set(['input_text', 'output_text']);
const TOOL_OUTPUTS: ReadonlySet<string> = new Set(['function_call_output', 'custom_tool_call_output']);
// Input items that carry no conversation turn: replayed reasoning, and Codex's tool and
// settings items (see the codex-*.json fixtures in test/fixtures/clients).
const BOOKKEEPING_ITEMS: ReadonlySet<string> = new Set([
  'reasoning',
  'additional_tools',
  'configuration_update',
  'item_reference',
  'compaction',
]);

const isMessageItem = (item: Record<string, unknown>): boolean =>
  (item.type === undefined || item.type === 'message') && typeof item.role === 'string';

/** Function tools, flat or nested one level inside `namespace` tools. */
function responsesTools(tools: unknown): OfferedTool[] {
  return records(tools).flatMap((tool): OfferedTool[] => {
    if (tool.type === 'function' && typeof tool.name === 'string') return [{ name: tool.name, schema: tool.parameters }];
    if (tool.type !== 'namespace' || typeof tool.name !== 'string') return [];
    const namespace = tool.name;
    return records(tool.tools)
      .filter((t) => t.type === 'function' && typeof t.name === 'string')
      .map((t) => ({ name: String(t.name), namespace, schema: t.parameters }));
  });
}

function readResponses(body: Body): Conversation {
  const input = body.input;
  const items = records(input);
  const last = items
    .filter((item) => !isOneOf(BOOKKEEPING_ITEMS, item.type))
    .filter((item) => !(isMessageItem(item) && isOneOf(INSTRUCTION_ROLES, item.role)))
    .at(-1);
  const lastUser = items.filter((item) => isMessageItem(item) && item.role === 'user').at(-1);
  // Codex's default model offers its tools in an `additional_tools` input item instead of `tools`.
  const extraTools = items.filter((item) => item.type === 'additional_tools').flatMap((item) => responsesTools(item.tools));
  const choice = body.tool_choice;
  const named = isRecord(choice) && choice.type === 'function' ? stringOf(choice.name) : undefined;
  return {
    userText:
      typeof input === 'string'
        ? input
        : typeof lastUser?.content === 'string'
          ? lastUser.content
          : lastTextPart(lastUser?.content, RESPONSES_USER_TEXT),
    toolResult: last !== undefined && isOneOf(TOOL_OUTPUTS, last.type) ? resultText(last.output, RESPONSES_RESULT_TEXT) : undefined,
    tools: [...responsesTools(body.tools), ...extraTools],
    toolChoice: toolChoice(choice === 'none', choice === 'required', named),
  };
}

/** A Gemini function's answer as text: its `output` (what the Gemini CLI sends), `result` or `content` string, else its JSON. */
function geminiResultText(response: unknown): string {
  if (!isRecord(response)) return typeof response === 'string' ? response : '';
  for (const key of ['output', 'result', 'content'] as const) {
    const text = stringOf(response[key]);
    if (text !== undefined) return text;
  }
  return JSON.stringify(response);
}

/** `functionCallingConfig.mode` values that force a call. */
const GEMINI_FORCING: ReadonlySet<string> = new Set(['ANY', 'VALIDATED']);

function readGemini(body: Body): Conversation {
  const contents = objectsAt(body, 'contents');
  // A content without a role is the user's, as Google reads it.
  const roleOf = (c: Record<string, unknown>): unknown => field(c, 'role') ?? 'user';
  const last = contents.at(-1);
  const lastUser = contents.filter((c) => roleOf(c) === 'user' && objectsAt(c, 'parts').some((p) => typeof field(p, 'text') === 'string')).at(-1);
  const results = last !== undefined && roleOf(last) !== 'model' ? objectsAt(last, 'parts').filter((p) => isRecord(field(p, 'functionResponse'))) : [];
  const lastResult = results.at(-1);
  const tools = objectsAt(body, 'tools').flatMap((tool) =>
    objectsAt(tool, 'functionDeclarations').flatMap((fn): OfferedTool[] => {
      const name = field(fn, 'name');
      if (typeof name !== 'string') return [];
      return [{ name, schema: field(fn, 'parametersJsonSchema') ?? field(fn, 'parameters') }];
    }),
  );
  const config = fieldAt(body, 'toolConfig.functionCallingConfig');
  const mode = field(config, 'mode');
  const allowed = field(config, 'allowedFunctionNames');
  const forced = typeof mode === 'string' && GEMINI_FORCING.has(mode);
  const named = forced && Array.isArray(allowed) && allowed.length === 1 ? stringOf(allowed[0]) : undefined;
  const texts = objectsAt(lastUser, 'parts').filter((p) => typeof field(p, 'text') === 'string' && field(p, 'thought') !== true);
  return {
    userText: stringOf(field(texts.at(-1), 'text')),
    toolResult: lastResult === undefined ? undefined : geminiResultText(field(field(lastResult, 'functionResponse'), 'response')),
    tools,
    toolChoice: toolChoice(mode === 'NONE', forced, named),
  };
}

const READERS = {
  chat: readChat,
  messages: readMessages,
  responses: readResponses,
  gemini: readGemini,
} as const satisfies Record<Protocol, (body: Body) => Conversation>;

export const readConversation = (protocol: Protocol, body: Body): Conversation => READERS[protocol](body);
