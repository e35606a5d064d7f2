/**
 * Responses `input` items → IR messages. Leading system/developer messages join
 * the system prompt; later ones stay in place as system messages. Consecutive
 * assistant-side items (reasoning, assistant message, function and custom tool
 * calls) form one assistant turn, and consecutive tool outputs one user turn,
 * as Chat and Messages need them. Codex's `additional_tools` and
 * `configuration_update` items carry tools and a reasoning effort.
 * @see test/fixtures/clients/ (what Codex sends, recorded: codex-*.json)
 */
import { invalidRequest } from '../../../errors.js';
import { isObject, type Json } from '../../shallow.js';
import type { AssistantPart, Message, ReasoningEffort, ReasoningPart, TextPart, Tool, TranslateContext, UserPart } from '../../../translate/ir.js';
import { decodeInputContent } from './decode-parts.js';
import { decodeTools } from './decode-tools.js';
import { reasoningPart } from './decode-output.js';
import { readEffort } from './decode-reasoning.js';
import { fromCarrier, replayedText } from './reasoning-carrier.js';
import { objects, str, warn } from './read.js';
import { append } from '../../../translate/common/append.js';
import { openCompaction, summaryInstruction } from './compaction.js';

export interface DecodedInput {
  readonly system: TextPart[];
  readonly messages: Message[];
  /** Tools from `additional_tools` items. */
  readonly tools: Tool[];
  /** The last `configuration_update` reasoning effort. */
  readonly effort?: ReasoningEffort;
}

type Building =
  | { role: 'system'; content: TextPart[] }
  | { role: 'user'; content: UserPart[]; toolOutputs: boolean }
  | { role: 'assistant'; content: AssistantPart[] };

function assistantContent(content: unknown, ctx: TranslateContext, where: string): AssistantPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalidRequest(`\`${where}\` must be a string or an array.`, where);
  return objects(content).flatMap((c): AssistantPart[] => {
    if (c.type === 'output_text' || c.type === 'input_text' || c.type === 'text') return [{ type: 'text', text: str(c.text) ?? '' }];
    if (c.type === 'refusal') return [{ type: 'refusal', text: str(c.refusal) ?? '' }];
    warn(ctx, `${String(c.type)} content`);
    return [];
  });
}

function historicalCall(item: Json, where: string): AssistantPart {
  const id = str(item.call_id);
  const name = str(item.name);
  if (!id) throw invalidRequest(`\`${where}.call_id\` must be a non-empty string.`, `${where}.call_id`);
  if (!name) throw invalidRequest(`\`${where}.name\` must be a non-empty string.`, `${where}.name`);
  const itemId = str(item.id);
  const namespace = str(item.namespace);
  const custom = item.type === 'custom_tool_call';
  return {
    type: 'tool_call',
    id,
    name,
    arguments: (custom ? str(item.input) : str(item.arguments)) ?? '',
    kind: custom ? 'custom' : 'function',
    ...(namespace !== undefined ? { namespace } : {}),
    ...(itemId !== undefined ? { itemId } : {}),
  };
}

/**
 * A replayed reasoning item. One that carries Claude's signature (see `reasoning-carrier.ts`) gives back
 * the signed thinking block, whose text travelled as the summary.
 */
function replayedReasoning(item: Json, ctx: TranslateContext): ReasoningPart | undefined {
  const part = reasoningPart(item);
  const carried = part.encrypted !== undefined ? fromCarrier(part.encrypted, replayedText(part), ctx) : undefined;
  if (carried === null) return undefined;
  return carried ? { type: 'reasoning', ...carried } : part;
}

export function decodeInput(input: unknown, ctx: TranslateContext): DecodedInput {
  const system: TextPart[] = [];
  const tools: Tool[] = [];
  const built: Building[] = [];
  let effort: ReasoningEffort | undefined;
  let started = false;
  if (typeof input === 'string') return { system, messages: [{ role: 'user', content: [{ type: 'text', text: input }] }], tools };
  if (input === undefined || input === null) return { system, messages: [], tools };
  if (!Array.isArray(input)) throw invalidRequest('`input` must be a string or an array of items.', 'input');

  const last = () => built[built.length - 1];
  const assistant = (): AssistantPart[] => {
    const turn = last();
    if (turn?.role === 'assistant') return turn.content;
    const fresh: Building = { role: 'assistant', content: [] };
    built.push(fresh);
    return fresh.content;
  };

  input.forEach((raw: unknown, i) => {
    const where = `input[${i}]`;
    if (!isObject(raw)) throw invalidRequest(`\`${where}\` must be an object.`, where);
    const type = raw.type ?? 'message';
    switch (type) {
      case 'message': {
        const role = raw.role;
        if (role === 'system' || role === 'developer') {
          const parts = decodeInputContent(raw.content, ctx, `${where}.content`);
          const texts = parts.filter((p): p is TextPart => p.type === 'text');
          if (texts.length < parts.length) warn(ctx, 'non-text system content');
          if (started) built.push({ role: 'system', content: texts });
          else append(system, texts);
        } else if (role === 'user') {
          started = true;
          built.push({ role: 'user', content: decodeInputContent(raw.content, ctx, `${where}.content`), toolOutputs: false });
        } else if (role === 'assistant') {
          started = true;
          // `id`, `status` and `phase` of a replayed output message mean nothing to another provider.
          append(assistant(), assistantContent(raw.content, ctx, `${where}.content`));
        } else throw invalidRequest(`\`${where}.role\` must be one of user, assistant, system, developer.`, `${where}.role`);
        break;
      }
      case 'function_call':
      case 'custom_tool_call':
        started = true;
        assistant().push(historicalCall(raw, where));
        break;
      case 'reasoning': {
        started = true;
        const part = replayedReasoning(raw, ctx);
        if (part) assistant().push(part);
        break;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        started = true;
        const callId = str(raw.call_id);
        if (!callId) throw invalidRequest(`\`${where}.call_id\` must be a non-empty string.`, `${where}.call_id`);
        const content = decodeInputContent(raw.output, ctx, `${where}.output`);
        const result: UserPart = {
          type: 'tool_result',
          callId,
          content,
          ...(type === 'custom_tool_call_output' ? { kind: 'custom' as const } : {}),
        };
        const turn = last();
        if (turn?.role === 'user' && turn.toolOutputs) turn.content.push(result);
        else built.push({ role: 'user', content: [result], toolOutputs: true });
        break;
      }
      case 'additional_tools':
        append(tools, decodeTools(raw.tools, ctx, `${where}.tools`));
        break;
      case 'configuration_update': {
        const reasoning = isObject(raw.reasoning) ? raw.reasoning : {};
        effort = readEffort(reasoning.effort) ?? effort;
        break;
      }
      case 'compaction': {
        // The gateway's own compaction item (compaction.ts) holds the summary; OpenAI's needs its stored state.
        const summary = openCompaction(raw, ctx);
        if (!summary) {
          warn(ctx, 'compaction history');
          break;
        }
        started = true;
        built.push({ role: 'user', content: summary, toolOutputs: false });
        break;
      }
      case 'compaction_trigger':
        // Only the last item asks for a compaction (decode-request.ts); one earlier asks nothing now.
        if (i !== input.length - 1) {
          warn(ctx, 'compaction_trigger history');
          break;
        }
        started = true;
        built.push({ role: 'user', content: summaryInstruction(), toolOutputs: false });
        break;
      case 'item_reference': {
        // The pipeline replaces references with the stored items (src/responses-store) before translating: one left names nothing held.
        const id = str(raw.id) ?? '';
        throw invalidRequest(`Item with id '${id}' not found.`, `${where}.id`);
      }
      default:
        // Built-in tool calls ran on OpenAI.
        warn(ctx, `${String(type)} history`);
    }
  });

  const messages = built.map((m): Message => (m.role === 'user' ? { role: 'user', content: m.content } : m));
  return { system, messages, tools, ...(effort !== undefined ? { effort } : {}) };
}
