/**
 * A Gemini stream (`:streamGenerateContent?alt=sse`: each `data:` event a whole
 * `GenerateContentResponse` chunk) → IR stream events. Gemini has no block start or stop: text and
 * thought pieces continue the block of their kind, a function call arrives whole in one part, and
 * the chunk with `finishReason` (which carries the final usage) ends the answer. A signature becomes
 * a reasoning block of its own before the part it came on, as in whole answers (decode-parts.ts);
 * a thought part's own signature goes on its block's details. A text part's signature that comes
 * after text reaches a Messages caller not at all (`dropsTextSignature`).
 */
import type { SseEvent } from '../../../sse/parse.js';
import type * as Ir from '../../../translate/ir.js';
import type { StreamDecoder } from '../../../translate/types.js';
import { callFromGemini, createdOf, firstCandidate, promptBlocked } from './decode-response.js';
import { decodeFinishReason } from './finish-reasons.js';
import { isObject, type Json, num, objects, parseObject, str, warn } from './read.js';
import { dropsTextSignature, partSignature, signatureEntry, TEXT_SIGNATURE_DROPPED } from './signatures.js';
import { decodeUsage } from './usage.js';

type Open = { readonly kind: 'text'; readonly index: number } | { readonly kind: 'reasoning'; readonly index: number; readonly entries: Json[] };

export function createStreamDecoder(ctx: Ir.TranslateContext): StreamDecoder {
  let started = false;
  let finished = false;
  let nextIndex = 0;
  let open: Open | undefined;
  let entries = 0;
  let calls = 0;
  let usage: unknown;
  /** Text of the answer was sent already (see `dropsTextSignature`). */
  let textSent = false;

  function close(out: Ir.StreamEvent[]): void {
    if (!open) return;
    if (open.kind === 'reasoning' && open.entries.length > 0) out.push({ type: 'block_delta', index: open.index, delta: { type: 'details', details: open.entries } });
    out.push({ type: 'block_stop', index: open.index });
    open = undefined;
  }

  function openBlock(kind: 'text' | 'reasoning', out: Ir.StreamEvent[]): Open {
    if (open?.kind === kind) return open;
    close(out);
    const index = nextIndex++;
    out.push({ type: 'block_start', index, block: { type: kind } });
    open = kind === 'text' ? { kind, index } : { kind, index, entries: [] };
    return open;
  }

  /** A signature on a part that is no thought: a reasoning block of its own, closed at once. */
  function signatureBlock(signature: string, out: Ir.StreamEvent[], callId?: string): void {
    close(out);
    const index = nextIndex++;
    out.push({ type: 'block_start', index, block: { type: 'reasoning' } });
    out.push({ type: 'block_delta', index, delta: { type: 'details', details: [signatureEntry(signature, entries++, callId !== undefined ? { callId } : undefined)] } });
    out.push({ type: 'block_stop', index });
  }

  function part(p: Json, out: Ir.StreamEvent[]): void {
    const signature = partSignature(p);
    if (p.thought === true) {
      const block = openBlock('reasoning', out);
      const text = str(p.text);
      if (text) out.push({ type: 'block_delta', index: block.index, delta: { type: 'reasoning', text } });
      if (signature !== undefined && block.kind === 'reasoning') block.entries.push(signatureEntry(signature, entries++, 'thought'));
      return;
    }
    if (isObject(p.functionCall)) {
      const call = callFromGemini(p.functionCall, calls++, ctx);
      if (signature !== undefined) signatureBlock(signature, out, call.id);
      else close(out);
      const index = nextIndex++;
      const { type: _type, arguments: args, ...head } = call;
      out.push({ type: 'block_start', index, block: { type: 'tool_call', ...head } });
      out.push({ type: 'block_delta', index, delta: { type: 'arguments', text: args } });
      out.push({ type: 'block_stop', index });
      return;
    }
    if (typeof p.text === 'string') {
      if (signature !== undefined && dropsTextSignature(ctx, textSent)) warn(ctx, TEXT_SIGNATURE_DROPPED);
      else if (signature !== undefined) signatureBlock(signature, out);
      if (p.text === '') return;
      textSent = true;
      const block = openBlock('text', out);
      out.push({ type: 'block_delta', index: block.index, delta: { type: 'text', text: p.text } });
      return;
    }
    if (signature !== undefined) signatureBlock(signature, out);
    warn(ctx, `${Object.keys(p).join('/') || 'empty'} part`);
  }

  function chunk(body: Json, out: Ir.StreamEvent[]): void {
    if (isObject(body.error)) {
      const status = str(body.error.status);
      out.push({ type: 'error', message: str(body.error.message) ?? 'Upstream stream error', ...(status !== undefined ? { errorType: status } : {}) });
      finished = true;
      return;
    }
    if (!started) {
      started = true;
      const prompt = isObject(body.usageMetadata) ? num(body.usageMetadata.promptTokenCount) : undefined;
      out.push({
        type: 'start',
        id: str(body.responseId) ?? ctx.newId(''),
        model: str(body.modelVersion) ?? ctx.upstreamModel,
        created: createdOf(body, ctx),
        ...(prompt !== undefined ? { usage: { inputTokens: prompt } } : {}),
      });
    }
    if (body.usageMetadata !== undefined) usage = body.usageMetadata;
    const candidate = firstCandidate(body, ctx);
    if (candidate === undefined) {
      if (promptBlocked(body)) end(out, 'content_filter');
      return;
    }
    for (const p of isObject(candidate.content) ? objects(candidate.content.parts) : []) part(p, out);
    if (typeof candidate.finishReason === 'string') end(out, decodeFinishReason(candidate.finishReason, calls > 0, ctx));
  }

  function end(out: Ir.StreamEvent[], stopReason: Ir.StopReason): void {
    close(out);
    out.push({ type: 'finish', stopReason, usage: decodeUsage(usage) });
    finished = true;
  }

  return {
    push(event: SseEvent) {
      const out: Ir.StreamEvent[] = [];
      if (finished) return out;
      const body = parseObject(event.data);
      if (body) chunk(body, out);
      return out;
    },
    // A body cut before the chunk with the finish reason is a broken answer, not an ending one.
    end: () => [],
  };
}
