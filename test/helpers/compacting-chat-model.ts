/**
 * A Chat model for a client's compaction. It answers the first turn with one tool call and a usage
 * far over the client's compaction threshold; it answers a summary request with `summary`: the
 * gateway's own (never streamed, `tool_choice` none, the instruction last, as a real server would be
 * asked) or the client's (its compaction prompt as the last user text, `clientPrompt`); once the
 * summary is in the history it ends the turn with `finalText`. A turn that carries on with the
 * tool's result but without the summary gets `UNCOMPACTED_TEXT`, so a test sees that compaction did
 * not happen.
 */
import type { ServerResponse } from 'node:http';
import { SUMMARY_INSTRUCTION } from '#src/compact/summary-request.js';
import { sse } from './canned.js';
import type { Behaviour, Received } from './received.js';
import type { ToolStep } from './strict-reasoning-upstreams.js';

type Json = Record<string, unknown>;

export const UNCOMPACTED_TEXT = 'Carried on without compacting.';

export const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? (content as Json[]).map((p) => (typeof p.text === 'string' ? p.text : '')).join('') : '';

export interface CompactingModel {
  readonly step: ToolStep;
  readonly summary: string;
  readonly finalText: string;
  /** What the first answer reports as its prompt: over the client's threshold. */
  readonly promptTokens: number;
  /** A piece of the client's own compaction prompt. */
  readonly clientPrompt: string;
}

export function compactingChatModel({ step, summary, finalText, promptTokens, clientPrompt }: CompactingModel): Behaviour {
  return (req: Received, res: ServerResponse) => {
    const body = req.json as Json;
    const messages = body.messages as Json[];
    const base = { id: `chatcmpl-compact-${messages.length}`, created: 1_700_000_000, model: body.model };
    const usage = { prompt_tokens: promptTokens, completion_tokens: 30, total_tokens: promptTokens + 30 };
    const lastText = textOf(messages.at(-1)?.content);
    if (lastText.includes(SUMMARY_INSTRUCTION) && (body.stream === true || body.tool_choice !== 'none')) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'The summary request must be whole and may not call tools.', type: 'invalid_request_error' } }));
      return;
    }
    const compacted = messages.some((m) => m.role === 'user' && textOf(m.content).includes(summary));
    const ranTool = messages.some((m) => m.role === 'tool');
    const call = { id: 'call_compact_0', type: 'function', function: { name: step.tool, arguments: JSON.stringify(step.input) } };
    const text = lastText.includes(SUMMARY_INSTRUCTION) || lastText.includes(clientPrompt) ? summary : compacted ? finalText : ranTool ? UNCOMPACTED_TEXT : undefined;
    if (body.stream !== true) {
      const message = text === undefined ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: text };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: text === undefined ? 'tool_calls' : 'stop' }], usage }));
      return;
    }
    const chunk = (delta: Json, finish: string | null = null) => sse({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
    let out = chunk({ role: 'assistant', content: '' });
    out += text === undefined ? chunk({ tool_calls: [{ index: 0, ...call }] }) + chunk({}, 'tool_calls') : chunk({ content: text }) + chunk({}, 'stop');
    out += sse({ ...base, object: 'chat.completion.chunk', choices: [], usage });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${out}data: [DONE]\n\n`);
  };
}
