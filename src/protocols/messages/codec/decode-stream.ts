/**
 * Anthropic SSE events → IR stream events. Server-tool blocks are skipped and
 * the remaining blocks renumbered so IR indexes stay contiguous; a custom
 * tool's stand-in arguments are buffered and emitted once, as its raw input.
 */
import { isObject, type Json } from '../../shallow.js';
import type { SseEvent } from '../../../sse/parse.js';
import type * as Ir from '../../../translate/ir.js';
import type { StreamDecoder } from '../../../translate/types.js';
import { callerArguments, toolCallHead } from './decode-response.js';
import { parseObject, str, warn, warnDroppedBlock } from './read.js';
import { decodeStopReason } from './stop-reasons.js';
import { countsToPartialUsage, countsToUsage, mergeCounts, readCounts, type AnthropicCounts } from './usage.js';

/** The block open upstream, by its upstream index. `skip` blocks are server-tool blocks. */
type Open =
  | { readonly upstream: number; readonly kind: 'skip' }
  | { readonly upstream: number; readonly kind: 'plain'; readonly index: number }
  | {
      readonly upstream: number;
      readonly kind: 'tool';
      readonly index: number;
      readonly toolKind: Ir.ToolKind;
      /** Arguments from `content_block_start` (`input` is `{}` when deltas follow). */
      readonly initial: string;
      /** Emitted so far (function tools) or buffered (custom tools). */
      text: string;
    };

/** The message events this decoder follows; `ping` and unknown (newer) events are ignored. */
const STREAM_EVENTS = new Set(['content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);

export function createStreamDecoder(ctx: Ir.TranslateContext): StreamDecoder {
  let started = false;
  let finished = false;
  let nextIndex = 0;
  let open: Open | undefined;
  let counts: AnthropicCounts = {};
  let stopReason: Ir.StopReason | undefined;
  let stopSequence: string | undefined;

  const start = (message: Json): Ir.StreamEvent => {
    started = true;
    counts = readCounts(message.usage);
    return {
      type: 'start',
      id: str(message.id) ?? ctx.newId('msg_'),
      model: str(message.model) ?? ctx.upstreamModel,
      created: Math.floor(ctx.now() / 1000),
      usage: countsToPartialUsage(counts),
    };
  };

  /** Events before `message_start` (a deviating upstream) get a start of their own. */
  const ensureStarted = (out: Ir.StreamEvent[]) => {
    if (!started) out.push(start({}));
  };

  function blockStart(index: number, block: Json, out: Ir.StreamEvent[]): void {
    const plain = (b: Ir.BlockStart) => {
      const ir = nextIndex++;
      open = { upstream: index, kind: 'plain', index: ir };
      out.push({ type: 'block_start', index: ir, block: b });
      return ir;
    };
    switch (block.type) {
      case 'text': {
        const ir = plain({ type: 'text' });
        const text = str(block.text);
        if (text) out.push({ type: 'block_delta', index: ir, delta: { type: 'text', text } });
        return;
      }
      case 'thinking': {
        const ir = plain({ type: 'reasoning' });
        const text = str(block.thinking);
        const signature = str(block.signature);
        if (text) out.push({ type: 'block_delta', index: ir, delta: { type: 'reasoning', text } });
        if (signature) out.push({ type: 'block_delta', index: ir, delta: { type: 'signature', signature } });
        return;
      }
      case 'redacted_thinking':
        plain({ type: 'reasoning', redacted: str(block.data) ?? '' });
        return;
      case 'tool_use': {
        const head = toolCallHead(str(block.id) ?? '', str(block.name) ?? '', ctx);
        const ir = nextIndex++;
        const input = isObject(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : '';
        open = { upstream: index, kind: 'tool', index: ir, toolKind: head.kind, initial: input, text: '' };
        out.push({ type: 'block_start', index: ir, block: { type: 'tool_call', ...head } });
        return;
      }
      default:
        warnDroppedBlock(block, ctx);
        open = { upstream: index, kind: 'skip' };
    }
  }

  function blockDelta(delta: Json, out: Ir.StreamEvent[]): void {
    if (!open || open.kind === 'skip') return;
    const index = open.index;
    switch (delta.type) {
      case 'text_delta': {
        const text = str(delta.text);
        if (text) out.push({ type: 'block_delta', index, delta: { type: 'text', text } });
        return;
      }
      case 'thinking_delta': {
        const text = str(delta.thinking);
        if (text) out.push({ type: 'block_delta', index, delta: { type: 'reasoning', text } });
        return;
      }
      case 'signature_delta': {
        const signature = str(delta.signature);
        if (signature) out.push({ type: 'block_delta', index, delta: { type: 'signature', signature } });
        return;
      }
      case 'input_json_delta': {
        const text = str(delta.partial_json);
        if (!text || open.kind !== 'tool') return;
        open.text += text;
        if (open.toolKind === 'function') out.push({ type: 'block_delta', index, delta: { type: 'arguments', text } });
        return;
      }
      case 'citations_delta':
        warn(ctx, 'citations');
        return;
      default:
    }
  }

  /** Closes the open block; a tool call without deltas gets its start `input` (or `{}`), custom tools their raw input. */
  function blockStop(out: Ir.StreamEvent[]): void {
    const block = open;
    open = undefined;
    if (!block || block.kind === 'skip') return;
    if (block.kind === 'tool') {
      const json = block.text || block.initial || '{}';
      const rest = block.toolKind === 'custom' ? callerArguments('custom', json) : block.text === '' ? json : '';
      if (rest) out.push({ type: 'block_delta', index: block.index, delta: { type: 'arguments', text: rest } });
    }
    out.push({ type: 'block_stop', index: block.index });
  }

  function handle(type: string, data: Json, out: Ir.StreamEvent[]): void {
    // Nothing follows a finish or an error in an IR stream.
    if (finished) return;
    if (type === 'message_start') {
      if (!started) out.push(start(isObject(data.message) ? data.message : {}));
      return;
    }
    if (type === 'error') {
      const error = isObject(data.error) ? data.error : {};
      const errorType = str(error.type);
      out.push({ type: 'error', message: str(error.message) ?? 'Upstream stream error', ...(errorType !== undefined ? { errorType } : {}) });
      finished = true;
      return;
    }
    if (!STREAM_EVENTS.has(type)) return;
    ensureStarted(out);
    switch (type) {
      case 'content_block_start':
        if (open) blockStop(out);
        blockStart(typeof data.index === 'number' ? data.index : -1, isObject(data.content_block) ? data.content_block : {}, out);
        return;
      case 'content_block_delta':
        if (isObject(data.delta) && (open?.upstream === data.index || data.index === undefined)) blockDelta(data.delta, out);
        return;
      case 'content_block_stop':
        if (open) blockStop(out);
        return;
      case 'message_delta': {
        const delta = isObject(data.delta) ? data.delta : {};
        if (delta.stop_reason !== undefined && delta.stop_reason !== null) stopReason = decodeStopReason(delta.stop_reason);
        stopSequence = str(delta.stop_sequence) ?? stopSequence;
        counts = mergeCounts(counts, readCounts(data.usage));
        return;
      }
      case 'message_stop':
        if (open) blockStop(out);
        finished = true;
        out.push({
          type: 'finish',
          stopReason: stopReason ?? 'end',
          ...(stopSequence !== undefined ? { stopSequence } : {}),
          usage: countsToUsage(counts),
        });
    }
  }

  return {
    push(event: SseEvent) {
      const data = parseObject(event.data);
      // The event name is authoritative; a data-only message falls back to its `type`.
      const type = event.event ?? str(data?.type);
      const out: Ir.StreamEvent[] = [];
      if (data && type) handle(type, data, out);
      return out;
    },
    end: () => [],
  };
}
