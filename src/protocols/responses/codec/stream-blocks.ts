/**
 * The IR side of the Responses stream decoder: output items and their content
 * parts → IR blocks, strictly one after another with contiguous indexes (what
 * `accumulateEvents` checks). Each output_text or refusal part, each reasoning
 * item and each tool call is one block. A block is closed when its part or item
 * is done, or when another one starts. Text the `*.done` events or the final
 * item carry beyond what the deltas said is emitted before closing, so a stream
 * that skipped deltas (or showed an item only when done) loses nothing.
 */
import type { Json } from '../../shallow.js';
import type * as Ir from '../../../translate/ir.js';
import { argumentsToCustomInput } from '../../../translate/common/tool-args.js';
import { reasoningTexts, summaryTexts, upstreamToolCall } from './decode-output.js';
import { objects, str, warn } from './read.js';

interface Block {
  irIndex: number;
}
interface PartState extends Block {
  type: 'text' | 'refusal';
  text: string;
}
type ItemState =
  | { kind: 'message'; parts: Map<number, PartState>; done: boolean }
  | (Block & { kind: 'reasoning'; summaries: string[]; text: string; encrypted: string | undefined; done: boolean })
  | (Block & { kind: 'tool'; args: string; standIn: boolean; done: boolean })
  | { kind: 'skip'; done: boolean };

/** What `full` adds to the `streamed` prefix (nothing when they disagree: the deltas win). */
const rest = (streamed: string, full: string | undefined): string =>
  full !== undefined && full.length > streamed.length && full.startsWith(streamed) ? full.slice(streamed.length) : '';

export function createStreamBlocks(ctx: Ir.TranslateContext, emit: (event: Ir.StreamEvent) => void) {
  const items = new Map<number, ItemState>();
  let next = 0;
  let open: Block | undefined;
  let calledTools = false;

  const closeOpen = () => {
    if (!open) return;
    emit({ type: 'block_stop', index: open.irIndex });
    open = undefined;
  };
  const openBlock = (block: Ir.BlockStart): Block => {
    closeOpen();
    const b: Block = { irIndex: next++ };
    emit({ type: 'block_start', index: b.irIndex, block });
    open = b;
    return b;
  };
  const close = (b: Block) => {
    if (open === b) closeOpen();
  };
  /** A delta for block `b`, dropped if `b` was closed already (a non-sequential upstream). */
  const delta = (b: Block, d: Ir.BlockDelta) => {
    if (open === b) emit({ type: 'block_delta', index: b.irIndex, delta: d });
  };

  function itemAdded(index: number, item: Json): void {
    switch (item.type) {
      case 'message':
        items.set(index, { kind: 'message', parts: new Map(), done: false });
        return;
      case 'reasoning': {
        const id = str(item.id);
        const encrypted = str(item.encrypted_content);
        const b = openBlock({ type: 'reasoning', ...(id !== undefined ? { id } : {}), ...(encrypted !== undefined ? { encrypted } : {}) });
        items.set(index, Object.assign(b, { kind: 'reasoning' as const, summaries: [] as string[], text: '', encrypted, done: false }));
        return;
      }
      case 'function_call':
      case 'custom_tool_call': {
        const call = upstreamToolCall({ ...item, arguments: '', input: '' }, ctx);
        const b = openBlock({
          type: 'tool_call',
          id: call.id,
          name: call.name,
          kind: call.kind,
          ...(call.namespace !== undefined ? { namespace: call.namespace } : {}),
          ...(call.itemId !== undefined ? { itemId: call.itemId } : {}),
        });
        calledTools = true;
        const standIn = item.type === 'function_call' && call.kind === 'custom';
        items.set(index, Object.assign(b, { kind: 'tool' as const, args: '', standIn, done: false }));
        return;
      }
      default:
        warn(ctx, `${String(item.type)} output`);
        items.set(index, { kind: 'skip', done: false });
    }
  }

  function part(index: number, contentIndex: number, type: 'text' | 'refusal'): PartState | undefined {
    const item = items.get(index);
    if (item?.kind !== 'message') return undefined;
    let p = item.parts.get(contentIndex);
    if (!p) {
      p = Object.assign(openBlock({ type }), { type, text: '' });
      item.parts.set(contentIndex, p);
    }
    return p.type === type ? p : undefined;
  }

  function partText(index: number, contentIndex: number, type: 'text' | 'refusal', text: string, whole: boolean): void {
    const p = part(index, contentIndex, type);
    if (!p) return;
    const add = whole ? rest(p.text, text) : text;
    if (add === '') return;
    p.text += add;
    delta(p, { type, text: add });
  }

  function summaryText(index: number, summaryIndex: number, text: string, whole: boolean): void {
    const r = items.get(index);
    if (r?.kind !== 'reasoning') return;
    const streamed = r.summaries[summaryIndex] ?? '';
    const add = whole ? rest(streamed, text) : text;
    // An empty delta only to make a new (empty) summary part exist.
    if (add === '' && r.summaries[summaryIndex] !== undefined) return;
    r.summaries[summaryIndex] = streamed + add;
    delta(r, { type: 'reasoning_summary', summaryIndex, text: add });
  }

  function reasoningText(index: number, text: string, whole: boolean): void {
    const r = items.get(index);
    if (r?.kind !== 'reasoning') return;
    const add = whole ? rest(r.text, text) : text;
    if (add === '') return;
    r.text += add;
    delta(r, { type: 'reasoning', text: add });
  }

  function toolInput(index: number, text: string, whole: boolean): void {
    const t = items.get(index);
    if (t?.kind !== 'tool') return;
    const add = whole ? rest(t.args, text) : text;
    if (add === '') return;
    t.args += add;
    // A custom tool's function stand-in: its arguments are turned back into the raw input at the end.
    if (!t.standIn) delta(t, { type: 'arguments', text: add });
  }

  /** An item is done (`output_item.done`, or listed in the final response): finish its blocks from its final form. */
  function itemDone(index: number, item: Json): void {
    let state = items.get(index);
    if (state?.done) return;
    if (!state) {
      // Never announced: shown whole. A message needs no announcement of its own.
      itemAdded(index, item);
      state = items.get(index)!;
    }
    state.done = true;
    switch (state.kind) {
      case 'message':
        objects(item.content).forEach((c, ci) => {
          if (c.type === 'output_text') {
            if (objects(c.annotations).length > 0) warn(ctx, 'annotations');
            partText(index, ci, 'text', str(c.text) ?? '', true);
          } else if (c.type === 'refusal') partText(index, ci, 'refusal', str(c.refusal) ?? '', true);
          else warn(ctx, `${String(c.type)} content`);
          const p = state.parts.get(ci);
          if (p) close(p);
        });
        for (const p of state.parts.values()) close(p);
        return;
      case 'reasoning': {
        const summaries = summaryTexts(item);
        for (let si = 0; si < summaries.length; si++) summaryText(index, si, summaries[si]!, true);
        reasoningText(index, reasoningTexts(item).join(''), true);
        const encrypted = str(item.encrypted_content);
        if (encrypted !== undefined && encrypted !== state.encrypted) delta(state, { type: 'encrypted', encrypted });
        close(state);
        return;
      }
      case 'tool':
        toolInput(index, str(item.type === 'custom_tool_call' ? item.input : item.arguments) ?? '', true);
        if (state.standIn) delta(state, { type: 'arguments', text: argumentsToCustomInput(state.args) });
        close(state);
        return;
      case 'skip':
        return;
    }
  }

  return {
    itemAdded,
    itemDone,
    partText,
    /** `content_part.done`: the part's last text, then its block ends. */
    partDone(index: number, contentIndex: number, p: Json) {
      if (p.type === 'output_text') partText(index, contentIndex, 'text', str(p.text) ?? '', true);
      else if (p.type === 'refusal') partText(index, contentIndex, 'refusal', str(p.refusal) ?? '', true);
      const item = items.get(index);
      const state = item?.kind === 'message' ? item.parts.get(contentIndex) : undefined;
      if (state) close(state);
    },
    summaryText,
    reasoningText,
    toolInput,
    closeOpen,
    get calledTools() {
      return calledTools;
    },
  };
}

export type StreamBlocks = ReturnType<typeof createStreamBlocks>;
