/**
 * IR stream events → Anthropic SSE: `message_start` (+ `ping`), content blocks
 * with contiguous indexes, `message_delta` with the stop reason and the real
 * usage, `message_stop`; an IR error becomes `event: error` and ends the stream.
 * Text blocks open on their first non-empty text (no empty blocks); reasoning is
 * shown as it comes when the gateway can seal it (its signature, Anthropic's or the seal,
 * follows at the end), else held until its end, since only signed thinking may be shown; tool arguments
 * pass while they remain a JSON object prefix and are closed if they must be.
 * @see README.md, "Forwarding" (an error after the stream started is the protocol's error event)
 * @see src/protocols/messages/codec/sdk.test.ts (the official SDK reads what this writes)
 */
import type * as Ir from '../../../translate/ir.js';
import type { Json } from '../../json.js';
import { argumentsToObject } from '../../../translate/common/tool-args.js';
import type { StreamEncoder } from '../../../translate/types.js';
import { messageId, reasoningBlock, sealedOf } from './encode-response.js';
import { createJsonObjectPrefix, type JsonObjectPrefix } from './json-prefix.js';
import { warn } from './read.js';
import { encodeStopReason } from './stop-reasons.js';
import { encodeUsage, usageCounts } from './usage.js';
import { messageHead, sse, type BlockDelta, type ContentBlock } from './wire.js';

type Block =
  | { readonly kind: 'text'; out?: number }
  | {
      readonly kind: 'reasoning';
      readonly redacted?: string;
      out?: number;
      /** The thinking shown so far: summaries and reasoning text, a blank line apart. */
      text: string;
      /** Where the last shown piece came from (a summary's index, or the reasoning text): a new one starts after a blank line. */
      segment?: number | 'text';
      fromSummary: boolean;
      signature: string;
      encrypted?: string;
      /** OpenRouter-style `reasoning_details`, known when the block ends. */
      details?: readonly Json[];
      readonly id?: string;
    }
  | { readonly kind: 'tool'; readonly out: number; readonly custom: boolean; readonly prefix: JsonObjectPrefix; full: string };

/** Anthropic `error.type` for an upstream's in-band error (Claude Code retries `overloaded_error`). */
function anthropicErrorType(type: string | undefined): string {
  switch (type) {
    case 'overloaded_error':
    case 'service_unavailable_error':
    case 'server_is_overloaded':
      return 'overloaded_error';
    case 'rate_limit_error':
    case 'rate_limit_exceeded':
      return 'rate_limit_error';
    case 'invalid_request_error':
    case 'authentication_error':
    case 'permission_error':
    case 'not_found_error':
    case 'timeout_error':
    case 'billing_error':
      return type;
    default:
      return 'api_error';
  }
}

export function createStreamEncoder(ctx: Ir.TranslateContext): StreamEncoder {
  let started = false;
  let done = false;
  let nextOut = 0;
  let block: Block | undefined;
  let hasToolCalls = false;
  let hasRefusal = false;
  let out = '';

  const startBlock = (content: ContentBlock): number => {
    const index = nextOut++;
    out += sse({ type: 'content_block_start', index, content_block: content });
    return index;
  };
  const delta = (index: number, d: BlockDelta) => (out += sse({ type: 'content_block_delta', index, delta: d }));
  const stopBlock = (index: number) => (out += sse({ type: 'content_block_stop', index }));

  function start(ev: Pick<Extract<Ir.StreamEvent, { type: 'start' }>, 'id' | 'usage'>): void {
    started = true;
    const message = {
      ...messageHead(messageId(ev, ctx), ctx.requestedModel),
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      // The real input counts follow in `message_delta` when the upstream reports them only at the end.
      usage: encodeUsage({ ...ev.usage, outputTokens: 0 }),
    } as const;
    out += sse({ type: 'message_start', message });
    out += sse({ type: 'ping' });
  }

  function openBlock(b: Ir.BlockStart): void {
    switch (b.type) {
      case 'text':
      case 'refusal':
        if (b.type === 'refusal') hasRefusal = true;
        block = { kind: 'text' };
        return;
      case 'reasoning':
        block =
          b.redacted !== undefined
            ? { kind: 'reasoning', redacted: b.redacted, out: startBlock({ type: 'redacted_thinking', data: b.redacted }), text: '', fromSummary: false, signature: '' }
            : {
                kind: 'reasoning',
                text: '',
                fromSummary: false,
                signature: '',
                ...(b.encrypted !== undefined ? { encrypted: b.encrypted } : {}),
                ...(b.id !== undefined ? { id: b.id } : {}),
              };
        return;
      case 'tool_call': {
        hasToolCalls = true;
        const index = startBlock({ type: 'tool_use', id: b.id, name: b.name, input: {}, caller: { type: 'direct' } });
        block = { kind: 'tool', out: index, custom: b.kind === 'custom', prefix: createJsonObjectPrefix(), full: '' };
      }
    }
  }

  function blockDelta(d: Ir.BlockDelta): void {
    if (!block) return;
    if (block.kind === 'text' && (d.type === 'text' || d.type === 'refusal') && d.text !== '') {
      block.out ??= startBlock({ type: 'text', text: '' });
      delta(block.out, { type: 'text_delta', text: d.text });
    } else if (block.kind === 'reasoning' && block.redacted === undefined) {
      if (d.type === 'reasoning') showThinking(block, 'text', d.text);
      else if (d.type === 'reasoning_summary') {
        block.fromSummary = true;
        showThinking(block, d.summaryIndex, d.text);
      } else if (d.type === 'signature') block.signature += d.signature;
      else if (d.type === 'encrypted') block.encrypted = d.encrypted;
      else if (d.type === 'details') block.details = d.details;
    } else if (block.kind === 'tool' && d.type === 'arguments') {
      block.full += d.text;
      const accepted = block.custom ? 0 : block.prefix.push(d.text);
      if (accepted > 0) delta(block.out, { type: 'input_json_delta', partial_json: d.text.slice(0, accepted) });
    }
  }

  /** The rest of a tool call's input: its arguments object when nothing was sent, else the closing of what was. */
  function finishTool(b: Extract<Block, { kind: 'tool' }>): void {
    if (b.custom || b.prefix.empty) {
      if (b.full.trim() !== '') delta(b.out, { type: 'input_json_delta', partial_json: JSON.stringify(argumentsToObject(b.full, ctx)) });
      return;
    }
    const rest = b.prefix.completion();
    if (rest !== '') delta(b.out, { type: 'input_json_delta', partial_json: rest });
    if (rest !== '' || b.prefix.broken) warn(ctx, 'invalid tool-call JSON closed');
  }

  /** Adds reasoning to the thinking shown, sent at once when it can be sealed at the end (else held: see closeBlock). */
  function showThinking(b: Extract<Block, { kind: 'reasoning' }>, segment: number | 'text', text: string): void {
    if (text === '') return;
    const piece = b.text !== '' && b.segment !== segment ? `\n\n${text}` : text;
    b.segment = segment;
    b.text += piece;
    if (!ctx.seal) return;
    b.out ??= startBlock({ type: 'thinking', thinking: '', signature: '' });
    delta(b.out, { type: 'thinking_delta', thinking: piece });
  }

  function closeReasoning(b: Extract<Block, { kind: 'reasoning' }>): void {
    if (b.out !== undefined) {
      // Shown as it came: only its signature is owed.
      const signature = b.signature || ctx.seal!.seal(b.text, sealedOf({ ...b, ...(b.fromSummary ? { summary: [b.text] } : {}) }));
      delta(b.out, { type: 'signature_delta', signature });
      return;
    }
    const part = { text: b.fromSummary ? '' : b.text, ...(b.fromSummary ? { summary: [b.text] } : {}), signature: b.signature };
    const carried = {
      ...(b.encrypted !== undefined ? { encrypted: b.encrypted } : {}),
      ...(b.id !== undefined ? { id: b.id } : {}),
      ...(b.details !== undefined ? { details: b.details } : {}),
    };
    const thinking = reasoningBlock({ ...part, ...carried }, ctx);
    if (thinking?.type !== 'thinking') return;
    b.out = startBlock({ type: 'thinking', thinking: '', signature: '' });
    if (thinking.thinking) delta(b.out, { type: 'thinking_delta', thinking: thinking.thinking });
    delta(b.out, { type: 'signature_delta', signature: thinking.signature });
  }

  function closeBlock(): void {
    const b = block;
    block = undefined;
    if (!b) return;
    if (b.kind === 'tool') finishTool(b);
    if (b.kind === 'reasoning' && b.redacted === undefined) closeReasoning(b);
    if (b.out !== undefined) stopBlock(b.out);
  }

  function finish(ev: Extract<Ir.StreamEvent, { type: 'finish' }>): void {
    closeBlock();
    const stopReason = encodeStopReason({ stopReason: ev.stopReason, hasToolCalls, hasRefusal });
    out += sse({
      type: 'message_delta',
      delta: {
        stop_reason: stopReason,
        stop_sequence: stopReason === 'stop_sequence' ? (ev.stopSequence ?? null) : null,
        stop_details: null,
        container: null,
      },
      usage: { ...usageCounts(ev.usage), server_tool_use: null },
    });
    out += sse({ type: 'message_stop' });
    done = true;
  }

  function handle(ev: Ir.StreamEvent): void {
    if (ev.type === 'error') {
      out += sse({ type: 'error', error: { type: anthropicErrorType(ev.errorType), message: ev.message } });
      done = true;
      return;
    }
    if (ev.type === 'start') {
      if (!started) start(ev);
      return;
    }
    // An IR stream always starts with `start`; this only guards a deviating producer.
    if (!started) start({ id: '' });
    switch (ev.type) {
      case 'block_start':
        closeBlock();
        openBlock(ev.block);
        return;
      case 'block_delta':
        blockDelta(ev.delta);
        return;
      case 'block_stop':
        closeBlock();
        return;
      case 'finish':
        finish(ev);
    }
  }

  return {
    push(ev) {
      if (done) return '';
      out = '';
      handle(ev);
      return out;
    },
    end: () => '',
  };
}
