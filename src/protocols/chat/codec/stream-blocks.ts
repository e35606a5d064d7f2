/**
 * Turns Chat deltas into sequential IR blocks. Chat interleaves nothing but
 * tool calls (`delta.tool_calls[].index` is the call's ordinal, and fragments
 * of parallel calls may interleave), while the IR needs each block whole
 * between its start and stop. So the first call streams live; a call that
 * starts while another is open is buffered and emitted whole once the open one
 * is over (text after the calls, or the finish). Custom-tool calls (a function
 * stand-in upstream) are buffered too: their `{input}` JSON becomes the raw
 * input only once complete.
 */
import type { StreamEvent, TranslateContext } from '../../../translate/ir.js';
import { argumentsToCustomInput } from '../../../translate/common/tool-args.js';
import { callerToolCall } from './tool-calls.js';
import { createDetailsAccumulator, type DetailsAccumulator } from './reasoning-details.js';
import type { Json } from './read.js';

interface Call {
  id: string | undefined;
  name: string | undefined;
  /** Argument text not yet emitted (all of it, for buffered and custom calls). */
  args: string;
  state: 'pending' | 'live' | 'done';
  custom: boolean;
}

type Open =
  | { readonly kind: 'text' | 'refusal'; readonly index: number }
  /** `details`: the block's `reasoning_details` so far, given whole when it closes. */
  | { readonly kind: 'reasoning'; readonly index: number; details?: DetailsAccumulator }
  | { readonly kind: 'tool'; readonly index: number; readonly call: Call };

export interface ToolFragment {
  readonly key: string;
  readonly id?: string | undefined;
  readonly name?: string | undefined;
  readonly arguments: string;
}

export interface BlockWriter {
  text(kind: 'text' | 'reasoning' | 'refusal', text: string, out: StreamEvent[]): void;
  tool(fragment: ToolFragment, out: StreamEvent[]): void;
  /** Pieces of `reasoning_details` entries: they belong to the open reasoning block (opened if need be). */
  details(pieces: readonly Json[], out: StreamEvent[]): void;
  /** Ends the open block and emits every buffered call. */
  flush(out: StreamEvent[]): void;
  readonly hasToolCalls: boolean;
}

export function createBlockWriter(ctx: TranslateContext): BlockWriter {
  let next = 0;
  let open: Open | undefined;
  const calls = new Map<string, Call>();
  /** Calls in the order they arrived. They start in that order, so the ones before `started` are all live or done. */
  const arrived: Call[] = [];
  let started = 0;

  function close(out: StreamEvent[]): void {
    if (!open) return;
    if (open.kind === 'tool') {
      const call = open.call;
      const rest = call.custom ? argumentsToCustomInput(call.args) : call.args;
      if (rest !== '') out.push({ type: 'block_delta', index: open.index, delta: { type: 'arguments', text: rest } });
      call.args = '';
      call.state = 'done';
    }
    if (open.kind === 'reasoning' && open.details !== undefined) {
      out.push({ type: 'block_delta', index: open.index, delta: { type: 'details', details: open.details.entries } });
    }
    out.push({ type: 'block_stop', index: open.index });
    open = undefined;
  }

  function startCall(call: Call, out: StreamEvent[]): void {
    close(out);
    call.id ??= ctx.newId('call_');
    const part = callerToolCall(ctx, call.id, call.name ?? '', '');
    const index = next++;
    const namespace = part.namespace !== undefined ? { namespace: part.namespace } : {};
    out.push({ type: 'block_start', index, block: { type: 'tool_call', id: part.id, name: part.name, kind: part.kind, ...namespace } });
    call.custom = part.kind === 'custom';
    call.state = 'live';
    open = { kind: 'tool', index, call };
    if (!call.custom && call.args !== '') {
      out.push({ type: 'block_delta', index, delta: { type: 'arguments', text: call.args } });
      call.args = '';
    }
  }

  /** The earliest call not started yet: one step per call over a whole stream, however many calls it has. */
  function firstPending(): Call | undefined {
    while (started < arrived.length && arrived[started]!.state !== 'pending') started++;
    return arrived[started];
  }

  function flush(out: StreamEvent[]): void {
    close(out);
    for (let call = firstPending(); call !== undefined; call = firstPending()) {
      startCall(call, out);
      close(out);
    }
  }

  /** The open block when it is of `kind`, else a new one of that kind, whatever came before (calls included) being over. */
  function openOf(kind: 'text' | 'reasoning' | 'refusal', out: StreamEvent[]): Open {
    if (open?.kind === kind) return open;
    flush(out);
    const opened: Open = { kind, index: next++ };
    open = opened;
    out.push({ type: 'block_start', index: opened.index, block: { type: kind } });
    return opened;
  }

  return {
    text(kind, text, out) {
      if (text === '') return;
      const block = openOf(kind, out);
      out.push({ type: 'block_delta', index: block.index, delta: { type: kind, text } });
    },
    details(pieces, out) {
      if (pieces.length === 0) return;
      const block = openOf('reasoning', out);
      if (block.kind !== 'reasoning') return;
      block.details ??= createDetailsAccumulator();
      block.details.add(pieces);
    },
    tool(fragment, out) {
      let call = calls.get(fragment.key);
      if (!call) {
        call = { id: undefined, name: undefined, args: '', state: 'pending', custom: false };
        calls.set(fragment.key, call);
        arrived.push(call);
      }
      // id and name come on the first fragment; servers that repeat them later do not change them.
      call.id ??= fragment.id;
      call.name ??= fragment.name || undefined;
      if (call.state === 'done') return; // a fragment after its call was closed: nothing can take it any more
      if (call.state === 'live') {
        if (call.custom) call.args += fragment.arguments;
        else if (fragment.arguments !== '' && open) {
          out.push({ type: 'block_delta', index: open.index, delta: { type: 'arguments', text: fragment.arguments } });
        }
        return;
      }
      call.args += fragment.arguments;
      // Live only when no other call is open and no earlier one waits; a call needs its name to start.
      if (open?.kind !== 'tool' && firstPending() === call && call.name !== undefined) startCall(call, out);
    },
    flush,
    get hasToolCalls() {
      return calls.size > 0;
    },
  };
}
