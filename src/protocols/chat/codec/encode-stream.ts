/**
 * IR stream → Chat SSE for a Chat caller: data-only chunks that all repeat id,
 * created and model; the first delta carries the role; each tool call starts
 * with index (the call's ordinal), id, type and name, then argument fragments;
 * a last delta carries `finish_reason`; with `stream_options.include_usage` in
 * the caller's request, `usage: null` on every chunk and a final `choices: []`
 * chunk with the usage. `[DONE]` comes from `end()`, after a finish only.
 * Reasoning streams as `reasoning_content`; `reasoning_details` entries go out
 * whole, OpenRouter's as they came, the gateway's sealed one when its block ends.
 * An IR error becomes the OpenAI in-band error chunk, and nothing follows it.
 * @see README.md, "Forwarding" (an error after the stream started is the protocol's error event)
 * @see src/protocols/chat/codec/sdk.test.ts (the official SDK reads what this writes)
 */
import { dataFrame as frame, DONE_FRAME } from '../../../sse/format.js';
import { callerResponseId } from '../../../translate/common/ids.js';
import type { StreamEvent, TranslateContext } from '../../../translate/ir.js';
import type { StreamEncoder } from '../../../translate/types.js';
import { customInputToArguments } from '../../../translate/common/tool-args.js';
import { finishReasonToChat } from './finish-reasons.js';
import { sealedEntry } from './sealed-details.js';
import { obj, type Json } from './read.js';
import { usageToChat } from './usage.js';
import { assertNever } from '../../../assert-never.js';

type Block =
  | { readonly type: 'text' | 'refusal' }
  /**
   * `segment`: the summary index or `text` last written, to put a blank line between segments as the JSON answer does.
   * The rest is what a sealed `reasoning_details` entry needs at the block's end (sealed-details.ts).
   */
  | {
      readonly type: 'reasoning';
      segment: number | 'text' | undefined;
      shown: string;
      fromSummary: boolean;
      signature: string;
      encrypted?: string;
      readonly id?: string;
      readonly redacted?: string;
      /** The upstream's own entries came: they go out instead of a sealed one. */
      details: boolean;
    }
  | { readonly type: 'tool_call'; readonly ordinal: number; readonly custom: boolean; buffer: string };

export function encodeStream(ctx: TranslateContext, callerBody: Json): StreamEncoder {
  const includeUsage = obj(callerBody.stream_options).include_usage === true;
  let base: Json | undefined;
  let finished = false;
  let failed = false;
  let toolCalls = 0;
  /** Some reasoning text went out already: the next segment needs a separator. */
  let reasoningShown = false;
  /** `reasoning_details` entries sent so far, each with its own index. */
  let entries = 0;
  const blocks = new Map<number, Block>();

  const header = (id: string, created: number): Json => ({ id, object: 'chat.completion.chunk', created, model: ctx.requestedModel });
  const head = (): Json => (base ??= header(ctx.newId('chatcmpl-'), Math.floor(ctx.now() / 1000)));
  const chunk = (delta: Json, finishReason: string | null = null) =>
    frame({
      ...head(),
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
      ...(includeUsage ? { usage: null } : {}),
    });

  function reasoningDelta(block: Block | undefined, segment: number | 'text', text: string): string {
    if (text === '' || block?.type !== 'reasoning') return '';
    const sep = reasoningShown && block.segment !== segment ? '\n\n' : '';
    // The block's own text keeps its own separators only: a seal covers what one part shows.
    if (block.shown !== '' && block.segment !== segment) block.shown += '\n\n';
    block.shown += text;
    if (segment !== 'text') block.fromSummary = true;
    block.segment = segment;
    reasoningShown = true;
    return chunk({ reasoning_content: sep + text });
  }

  /** A reasoning block's sealed `reasoning_details` entry, when it holds what `reasoning_content` cannot. */
  function sealedChunk(block: Extract<Block, { type: 'reasoning' }>): string {
    if (block.details) return '';
    const part = {
      ...(block.fromSummary ? { text: '', summary: [block.shown] } : { text: block.shown }),
      ...(block.signature !== '' ? { signature: block.signature } : {}),
      ...(block.encrypted !== undefined ? { encrypted: block.encrypted } : {}),
      ...(block.id !== undefined ? { id: block.id } : {}),
      ...(block.redacted !== undefined ? { redacted: block.redacted } : {}),
    };
    const entry = sealedEntry(part, ctx, entries);
    if (!entry) return '';
    entries++;
    return chunk({ reasoning_details: [entry] });
  }

  function push(ev: StreamEvent): string {
    switch (ev.type) {
      case 'start':
        base = header(callerResponseId('chatcmpl-', ev.id, ctx), ev.created);
        return chunk({ role: 'assistant', content: '' });
      case 'block_start': {
        const b = ev.block;
        if (b.type === 'tool_call') {
          const ordinal = toolCalls++;
          blocks.set(ev.index, { type: 'tool_call', ordinal, custom: b.kind === 'custom', buffer: '' });
          return chunk({ tool_calls: [{ index: ordinal, id: b.id, type: 'function', function: { name: b.name, arguments: '' } }] });
        }
        if (b.type !== 'reasoning') {
          blocks.set(ev.index, { type: b.type });
          return '';
        }
        blocks.set(ev.index, {
          type: 'reasoning',
          segment: undefined,
          shown: '',
          fromSummary: false,
          signature: '',
          details: false,
          ...(b.encrypted !== undefined ? { encrypted: b.encrypted } : {}),
          ...(b.id !== undefined ? { id: b.id } : {}),
          ...(b.redacted !== undefined ? { redacted: b.redacted } : {}),
        });
        return '';
      }
      case 'block_delta': {
        const block = blocks.get(ev.index);
        const d = ev.delta;
        switch (d.type) {
          case 'text':
            return d.text !== '' ? chunk({ content: d.text }) : '';
          case 'refusal':
            return d.text !== '' ? chunk({ refusal: d.text }) : '';
          case 'reasoning':
            return reasoningDelta(block, 'text', d.text);
          case 'reasoning_summary':
            return reasoningDelta(block, d.summaryIndex, d.text);
          case 'signature':
            // Known at the block's end, which seals it with the text (see block_stop).
            if (block?.type === 'reasoning') block.signature += d.signature;
            return '';
          case 'encrypted':
            if (block?.type === 'reasoning') block.encrypted = d.encrypted;
            return '';
          case 'details':
            if (block?.type !== 'reasoning' || d.details.length === 0) return '';
            block.details = true;
            entries += d.details.length;
            // Whole entries, each with its index, as OpenRouter streams them.
            return chunk({ reasoning_details: d.details });
          case 'arguments':
            if (block?.type !== 'tool_call' || d.text === '') return '';
            if (block.custom) {
              block.buffer += d.text;
              return '';
            }
            return chunk({ tool_calls: [{ index: block.ordinal, function: { arguments: d.text } }] });
          default:
            return assertNever(d);
        }
      }
      case 'block_stop': {
        const block = blocks.get(ev.index);
        if (block?.type === 'reasoning') return sealedChunk(block);
        // A custom tool's raw input goes out whole, wrapped as the function stand-in's arguments.
        if (block?.type !== 'tool_call' || !block.custom) return '';
        return chunk({ tool_calls: [{ index: block.ordinal, function: { arguments: customInputToArguments(block.buffer) } }] });
      }
      case 'finish': {
        finished = true;
        const out = chunk({}, finishReasonToChat(ev.stopReason));
        return includeUsage ? out + frame({ ...head(), choices: [], usage: usageToChat(ev.usage) }) : out;
      }
      case 'error':
        failed = true;
        return frame({ error: { message: ev.message, type: ev.errorType ?? 'server_error', param: null, code: null } });
    }
  }

  return {
    push: (ev) => (finished || failed ? '' : push(ev)),
    end: () => (finished && !failed ? DONE_FRAME : ''),
  };
}
