/**
 * A Claude model for the cloud fakes (fake-bedrock.ts, fake-vertex.ts) that drives a real client's
 * tool loop: it reads the Messages body it is sent and decides, as a model would, what to answer.
 * - A turn that does not end with a tool result, offering a shell tool (Claude Code's `Bash`,
 *   Codex's `exec_command`): a call of that tool running the model's command.
 * - A turn that ends with the tool's result: text saying what the command printed.
 * Like Anthropic's API it refuses, with its wording, a conversation whose tool results are not
 * paired with the calls of the turn right before them, and, when thinking is on, a tool call sent
 * back without the thinking block (and signature) it came with.
 */
import { sse } from './canned.js';

type Json = Record<string, unknown>;
type Block = Json & { type: string };
interface Turn {
  role: string;
  content: string | Block[];
}

/** A whole Messages answer for `body`, or a `ModelRefusal` thrown. `model` is the name the answer gives the model. */
export type ClaudeModel = (body: Json, model: string) => Json;

/**
 * The name a cloud's answer gives the model it ran: Anthropic's own id, whatever the cloud's id
 * (Bedrock's `us.anthropic.claude-sonnet-4-5-20250929-v1:0`, Vertex's `claude-sonnet-4-5@20250929`).
 */
export function anthropicModelId(cloudId: string): string {
  const bedrock = /^(?:[a-z]+\.)?anthropic\.(.+?)-v\d+(?::\d+)?$/.exec(cloudId);
  return bedrock ? bedrock[1]! : cloudId.replace('@', '-');
}

/** A request the model refuses: Anthropic's 400 invalid_request_error, with this message. */
export class ModelRefusal extends Error {}

/** The shell tools the clients offer, and how each takes the command. */
const SHELL_TOOLS: Readonly<Record<string, (command: string) => Json>> = {
  Bash: (command) => ({ command, description: 'Print a line' }),
  exec_command: (cmd) => ({ cmd }),
};

/** What the model says once the tool's result came back. */
export const finalTextOf = (output: string) => `The command printed: ${output}`;

/** The signature of the thinking that came with the call `id`: what must come back with that call. */
const signatureOf = (id: string) => `EqQBCkYIARgCKkD-fake-signature-of-${id}`;

const blocksOf = (turn: Turn | undefined): Block[] => (turn === undefined || typeof turn.content === 'string' ? [] : turn.content);

/** The text of a tool result's content (a string, or text blocks). */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Block[]).map((b) => (b.type === 'text' ? String(b.text) : '')).join('');
}

/**
 * The model: `command` is what it runs (each client's shell tool takes it in its own field); `ids`
 * prefixes the tool call ids it mints, so a test can tell its calls from any other.
 */
export function shellToolModel(command: string, ids = 'toolu_fake'): ClaudeModel {
  return (body, model) => {
    const messages = body.messages as Turn[];
    const thinkingOn = ['enabled', 'adaptive'].includes(String((body.thinking as Json | undefined)?.type));
    checkPairs(messages);
    if (thinkingOn) checkThinking(messages);
    const results = blocksOf(messages.at(-1)).filter((b) => b.type === 'tool_result');
    const turn = messages.filter((m) => m.role === 'assistant').length;
    const content: Block[] = [];
    if (thinkingOn) content.push({ type: 'thinking', thinking: 'The user wants the command run; I will call the shell tool.', signature: '' });
    let stop = 'end_turn';
    const tools = Array.isArray(body.tools) ? (body.tools as { name?: unknown }[]) : [];
    const shell = tools.map((t) => String(t.name)).find((name) => Object.hasOwn(SHELL_TOOLS, name));
    if (results.length > 0) {
      content.push({ type: 'text', text: finalTextOf(resultText(results[0]!.content).trim()) });
    } else if (shell !== undefined) {
      const id = `${ids}_${turn}`;
      content.push({ type: 'tool_use', id, name: shell, input: SHELL_TOOLS[shell]!(command) });
      stop = 'tool_use';
    } else {
      content.push({ type: 'text', text: 'No shell tool was offered.' });
    }
    // The thinking's signature binds it to the call it came with (or to the turn, for a text answer).
    const thinking = content.find((b) => b.type === 'thinking');
    if (thinking) thinking.signature = signatureOf(String(content.find((b) => b.type === 'tool_use')?.id ?? `${ids}_text_${turn}`));
    return {
      id: `msg_fake_${turn}`,
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    };
  };
}

/** Anthropic's pairing rules: a turn's tool calls are all answered by the next turn's tool results, and only they are. */
function checkPairs(messages: readonly Turn[]): void {
  messages.forEach((turn, i) => {
    const results = blocksOf(turn).filter((b) => b.type === 'tool_result');
    if (turn.role === 'user' && results.length > 0) {
      const previous = messages[i - 1];
      const calls = new Set(previous?.role === 'assistant' ? blocksOf(previous).filter((b) => b.type === 'tool_use').map((b) => b.id) : []);
      const stray = results.filter((r) => !calls.has(r.tool_use_id)).map((r) => String(r.tool_use_id));
      if (stray.length > 0) {
        throw new ModelRefusal(
          `messages.${i}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
    }
    if (turn.role === 'assistant') {
      const next = messages[i + 1];
      if (next === undefined) return;
      const answered = new Set(blocksOf(next).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
      const unanswered = blocksOf(turn).filter((b) => b.type === 'tool_use' && !answered.has(b.id)).map((b) => String(b.id));
      if (unanswered.length > 0) {
        throw new ModelRefusal(
          `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
    }
  });
}

/** With thinking on, the last assistant turn of a tool loop starts with the thinking it came with, signature intact. */
function checkThinking(messages: readonly Turn[]): void {
  const i = messages.findLastIndex((m) => m.role === 'assistant');
  const blocks = blocksOf(messages[i]);
  const call = blocks.find((b) => b.type === 'tool_use');
  if (call === undefined) return;
  const first = blocks[0];
  if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking') {
    throw new ModelRefusal(
      `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`.`,
    );
  }
  if (first.type === 'thinking' && first.signature !== signatureOf(String(call.id))) {
    throw new ModelRefusal(`messages.${i}.content.0: Invalid \`signature\` in \`thinking\` block`);
  }
}

/** The Anthropic stream events of a whole answer: text in two pieces, a call's input as one JSON delta, thinking then its signature. */
export function messageEvents(message: Json): Json[] {
  const content = message.content as Block[];
  const usage = message.usage as Json;
  const events: Json[] = [{ type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      const text = String(block.text);
      const half = text.length >> 1;
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of [text.slice(0, half), text.slice(half)]) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    } else if (block.type === 'tool_use') {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    } else if (block.type === 'thinking') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  events.push({ type: 'message_stop' });
  return events;
}

/** The same events as Anthropic's server-sent events. */
export const messageSse = (message: Json): string => messageEvents(message).map((e) => sse(e, String(e.type))).join('');
