/**
 * An upstream Chat stream → IR events. Chunks are data-only; the
 * `finish_reason` chunk comes before the usage chunk (`choices: []`) and
 * `[DONE]`, so the IR `finish` goes out once usage is known: with the usage
 * chunk (or usage on the finish chunk itself, as DeepSeek sends it, or in its
 * choice, as Kimi does), at `[DONE]`, or at the end of the body (zeros when no
 * usage came). A chunk with a top-level `error` (or, from a few servers, an
 * `event: error`) is the in-band error. Unknown fields (`obfuscation`,
 * `system_fingerprint`) and data that is not a chunk are ignored.
 * @see README.md, "Forwarding" (an error after the stream started is the protocol's error event)
 */
import type { SseEvent } from '../../../sse/parse.js';
import type { StopReason, StreamEvent, TranslateContext, Usage } from '../../../translate/ir.js';
import type { StreamDecoder } from '../../../translate/types.js';
import { stopReasonFromChat } from './finish-reasons.js';
import { isObject, num, obj, objects, parseJson, str, type Json } from './read.js';
import { readDetails } from './reasoning-details.js';
import { createBlockWriter, type ToolFragment } from './stream-blocks.js';
import { chatUsageObject, usageFromChat } from './usage.js';

const ZERO: Usage = { inputTokens: 0, outputTokens: 0 };

export function decodeStream(ctx: TranslateContext): StreamDecoder {
  const blocks = createBlockWriter(ctx);
  let started = false;
  let stopReason: StopReason | undefined;
  let usage: Usage | undefined;
  let over = false;
  /** Fragments without an `index` (a few servers): matched by id, else taken as the latest call. */
  let lastKey = '0';
  const idsByKey = new Map<string, string>();

  function start(chunk: Json, out: StreamEvent[]): void {
    if (started) return;
    started = true;
    out.push({
      type: 'start',
      id: str(chunk.id) ?? ctx.newId('chatcmpl-'),
      model: str(chunk.model) ?? ctx.upstreamModel,
      created: num(chunk.created) ?? Math.floor(ctx.now() / 1000),
    });
  }

  function finish(out: StreamEvent[]): void {
    if (over || !started) return;
    if (stopReason === undefined) {
      blocks.flush(out);
      stopReason = stopReasonFromChat(undefined, blocks.hasToolCalls);
    }
    over = true;
    out.push({ type: 'finish', stopReason, usage: usage ?? ZERO });
  }

  const keyOf = (t: Json): string => {
    const index = num(t.index);
    const id = str(t.id);
    let key = index !== undefined ? String(index) : id !== undefined ? `id:${id}` : lastKey;
    // Servers that send each call whole may give every one index 0: a new id is a new call.
    const known = idsByKey.get(key);
    if (id !== undefined && known !== undefined && known !== id) key = `id:${id}`;
    if (id !== undefined && !idsByKey.has(key)) idsByKey.set(key, id);
    lastKey = key;
    return key;
  };

  function delta(d: Json, out: StreamEvent[]): void {
    // Not OpenAI fields: `reasoning_content` (DeepSeek, vLLM), `reasoning` (OpenRouter, Ollama).
    const reasoning = str(d.reasoning_content) ?? str(d.reasoning);
    if (reasoning) blocks.text('reasoning', reasoning, out);
    // OpenRouter: the same reasoning as entries (text, summaries, encrypted data, signatures), in pieces by index.
    const details = readDetails(d.reasoning_details);
    if (details) blocks.details(details, out);
    if (typeof d.content === 'string') blocks.text('text', d.content, out);
    if (typeof d.refusal === 'string') blocks.text('refusal', d.refusal, out);
    for (const t of objects(d.tool_calls)) {
      const fn = obj(t.function);
      const fragment: ToolFragment = { key: keyOf(t), id: str(t.id), name: str(fn.name), arguments: str(fn.arguments) ?? '' };
      blocks.tool(fragment, out);
    }
    if (isObject(d.function_call)) {
      const fn = d.function_call;
      blocks.tool({ key: 'function_call', name: str(fn.name), arguments: str(fn.arguments) ?? '' }, out);
    }
  }

  function chunk(json: Json, out: StreamEvent[]): void {
    if (json.error) {
      const err = obj(json.error);
      const errorType = str(err.type) ?? str(err.code);
      out.push({
        type: 'error',
        message: str(err.message) ?? str(json.error) ?? 'The upstream reported an error.',
        ...(errorType !== undefined ? { errorType } : {}),
      });
      over = true;
      return;
    }
    if (!Array.isArray(json.choices) && !isObject(json.usage)) return; // not a chunk (a keepalive `{}`, say)
    start(json, out);
    for (const choice of objects(json.choices)) {
      if ((num(choice.index) ?? 0) !== 0 || stopReason !== undefined) continue;
      if (isObject(choice.delta)) delta(choice.delta, out);
      if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
        blocks.flush(out);
        stopReason = stopReasonFromChat(choice.finish_reason, blocks.hasToolCalls);
      }
    }
    const stated = chatUsageObject(json);
    if (isObject(stated)) {
      usage = usageFromChat(stated);
      if (stopReason !== undefined) finish(out);
    }
  }

  return {
    push(event: SseEvent) {
      const out: StreamEvent[] = [];
      if (over) return out;
      if (event.data.trim() === '[DONE]') {
        finish(out);
        return out;
      }
      const json = parseJson(event.data);
      // Chat is data-only; a few servers still name an error event, with or without the `error` wrapper.
      if (event.event === 'error') chunk({ error: isObject(json) ? (json.error ?? json) : event.data }, out);
      else if (isObject(json)) chunk(json, out);
      return out;
    },
    end() {
      const out: StreamEvent[] = [];
      // A finish_reason without usage or [DONE] still ends properly; a body cut before it does not.
      if (stopReason !== undefined) finish(out);
      return out;
    },
  };
}
