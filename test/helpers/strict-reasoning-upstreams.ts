/**
 * Strict reasoning models for tool loops driven by a real client: each turn answers with its own
 * reasoning and a tool call from `steps` (one per turn, in order), then with `finalText`; and, like
 * the real ones, each refuses an assistant tool-call turn sent back without the reasoning it gave
 * with that call. Both stream when asked, as the clients ask.
 * - Chat: DeepSeek's thinking mode with tools (`reasoning_content`, refused with DeepSeek's wording).
 * - Responses: a reasoning model whose function_call items need their reasoning item (same id, same
 *   encrypted_content) right before them; encrypted reasoning is only given when `include` asks.
 */
import type { ServerResponse } from 'node:http';
import { sse } from './canned.js';
import type { Behaviour, Received } from './received.js';

type Json = Record<string, unknown>;

export interface ToolStep {
  readonly tool: string;
  readonly input: Json;
}

/** The reasoning the model gives with the call of turn `n`: what must come back with that call. */
export const reasoningOf = (n: number) => `Turn ${n}: the next step is a tool call; I will run it and read its result.`;
export const encryptedOf = (n: number) => `enc-turn-${n}-opaque`;
const callIdOf = (n: number) => `call_strict_${n}`;

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** The turn number of a call id this model minted, or undefined for a call it never made. */
const turnOf = (callId: unknown): number | undefined => {
  const m = typeof callId === 'string' ? /^call_strict_(\d+)$/.exec(callId) : null;
  return m ? Number(m[1]) : undefined;
};

export function strictChatModel(steps: readonly ToolStep[], finalText: string): Behaviour {
  return (req: Received, res: ServerResponse) => {
    const body = req.json as Json;
    const messages = body.messages as Json[];
    for (const [i, m] of messages.entries()) {
      if (m.role !== 'assistant' || !Array.isArray(m.tool_calls)) continue;
      const n = turnOf((m.tool_calls[0] as Json).id);
      if (n === undefined || m.reasoning_content !== reasoningOf(n)) {
        json(res, 400, { error: { message: `messages[${i}]: The reasoning_content in the thinking mode must be passed back to the API.`, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } });
        return;
      }
    }
    const n = messages.filter((m) => m.role === 'tool').length;
    const step = steps[n];
    const reasoning = step ? reasoningOf(n) : 'All steps ran; time to answer.';
    const calls = step ? [{ id: callIdOf(n), type: 'function', function: { name: step.tool, arguments: JSON.stringify(step.input) } }] : undefined;
    const finish = step ? 'tool_calls' : 'stop';
    // DeepSeek reports its prompt cache in its own fields.
    const usage = { prompt_tokens: 900, completion_tokens: 40, total_tokens: 940, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 900 };
    const base = { id: `chatcmpl-strict-${n}`, created: 1_700_000_000, model: body.model, system_fingerprint: 'fp_strict' };
    if (body.stream !== true) {
      const message = { role: 'assistant', content: step ? null : finalText, reasoning_content: reasoning, ...(calls ? { tool_calls: calls } : {}) };
      json(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage });
      return;
    }
    const chunk = (delta: Json, finishReason: string | null = null) =>
      sse({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });
    // Reasoning in pieces, as DeepSeek streams it, then the content or the call.
    const half = reasoning.length >> 1;
    let out = chunk({ role: 'assistant', content: null, reasoning_content: reasoning.slice(0, half) }) + chunk({ content: null, reasoning_content: reasoning.slice(half) });
    out += calls ? chunk({ tool_calls: [{ index: 0, ...calls[0] }] }) : chunk({ content: finalText, reasoning_content: null });
    out += chunk({}, finish) + sse({ ...base, object: 'chat.completion.chunk', choices: [], usage });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${out}data: [DONE]\n\n`);
  };
}

export function strictResponsesModel(steps: readonly ToolStep[], finalText: string): Behaviour {
  return (req: Received, res: ServerResponse) => {
    const body = req.json as Json;
    const input = body.input as Json[];
    for (const [i, item] of input.entries()) {
      if (item.type !== 'function_call') continue;
      const n = turnOf(item.call_id);
      const before = input[i - 1];
      if (n === undefined || before?.type !== 'reasoning' || before.id !== `rs_strict_${n}` || before.encrypted_content !== encryptedOf(n)) {
        json(res, 400, { error: { message: `Item '${String(item.id ?? item.call_id)}' of type 'function_call' was provided without its required 'reasoning' item.`, type: 'invalid_request_error', param: 'input', code: null } });
        return;
      }
    }
    const n = input.filter((i) => i.type === 'function_call_output').length;
    const step = steps[n];
    const encrypted = Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
    const summary = step ? reasoningOf(n) : 'All steps ran; time to answer.';
    const reasoning = { type: 'reasoning', id: `rs_strict_${n}`, summary: [{ type: 'summary_text', text: summary }], ...(encrypted ? { encrypted_content: encryptedOf(n) } : {}) };
    const last = step
      ? { type: 'function_call', id: `fc_strict_${n}`, call_id: callIdOf(n), name: step.tool, arguments: JSON.stringify(step.input), status: 'completed' }
      : { type: 'message', id: `msg_strict_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: finalText, annotations: [] }] };
    const usage = { input_tokens: 900, input_tokens_details: { cached_tokens: 0 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 20 }, total_tokens: 940 };
    const response = { id: `resp_strict_${n}`, object: 'response', created_at: 1_700_000_000, status: 'completed', model: body.model, output: [reasoning, last], usage, error: null, incomplete_details: null };
    if (body.stream !== true) {
      json(res, 200, response);
      return;
    }
    const events: [string, Json][] = [
      ['response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } }],
      ['response.output_item.added', { output_index: 0, item: { ...reasoning, summary: [] } }],
      ['response.reasoning_summary_part.added', { item_id: reasoning.id, output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } }],
      ['response.reasoning_summary_text.delta', { item_id: reasoning.id, output_index: 0, summary_index: 0, delta: summary }],
      ['response.reasoning_summary_text.done', { item_id: reasoning.id, output_index: 0, summary_index: 0, text: summary }],
      ['response.reasoning_summary_part.done', { item_id: reasoning.id, output_index: 0, summary_index: 0, part: { type: 'summary_text', text: summary } }],
      ['response.output_item.done', { output_index: 0, item: reasoning }],
    ];
    if (last.type === 'function_call') {
      const args = (last as { arguments: string }).arguments;
      events.push(
        ['response.output_item.added', { output_index: 1, item: { ...last, arguments: '', status: 'in_progress' } }],
        ['response.function_call_arguments.delta', { item_id: last.id, output_index: 1, delta: args }],
        ['response.function_call_arguments.done', { item_id: last.id, output_index: 1, arguments: args }],
      );
    } else {
      const part = { type: 'output_text', text: '', annotations: [] };
      events.push(
        ['response.output_item.added', { output_index: 1, item: { ...last, status: 'in_progress', content: [] } }],
        ['response.content_part.added', { item_id: last.id, output_index: 1, content_index: 0, part }],
        ['response.output_text.delta', { item_id: last.id, output_index: 1, content_index: 0, delta: finalText, logprobs: [] }],
        ['response.output_text.done', { item_id: last.id, output_index: 1, content_index: 0, text: finalText, logprobs: [] }],
        ['response.content_part.done', { item_id: last.id, output_index: 1, content_index: 0, part: { ...part, text: finalText } }],
      );
    }
    events.push(['response.output_item.done', { output_index: 1, item: last }], ['response.completed', { response }]);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(events.map(([type, data], i) => sse({ type, sequence_number: i, ...data }, type)).join(''));
  };
}
