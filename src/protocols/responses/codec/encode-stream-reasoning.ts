/**
 * One IR reasoning block → a Responses reasoning item's stream events. Its
 * summary parts stream as `reasoning_summary_part.*` / `reasoning_summary_text.*`;
 * reasoning text without a summary of its own (Claude's thinking, Chat
 * `reasoning_content`) streams as summary part 0, since Codex shows summaries;
 * text next to a real summary streams as `reasoning_text` content. The
 * signature or encrypted content is known only at the end and goes on the
 * `output_item.done` item (see `reasoning-carrier.ts`).
 */
import type { Json } from '../../shallow.js';
import type * as Ir from '../../../translate/ir.js';
import { reasoningItemOf, type ItemStatus } from './encode-output.js';
import { carrierFor } from './reasoning-carrier.js';
import type { Json as Entry } from '../../json.js';

export interface ReasoningWriter {
  readonly index: number;
  /** The item as `output_item.added` shows it. */
  added(): Json;
  delta(delta: Ir.BlockDelta): string;
  /** The closing events and the final item. */
  stop(): { frames: string; item: Json };
}

interface Options {
  readonly index: number;
  readonly id: string;
  readonly block: Extract<Ir.BlockStart, { type: 'reasoning' }>;
  readonly frame: (type: string, fields: Json) => string;
  readonly ctx: Ir.TranslateContext;
}

export function createReasoningWriter({ index, id, block, frame, ctx }: Options): ReasoningWriter {
  /** `summary`: the block has its own summary; `text`: its text is shown as summary part 0. Decided by the first delta. */
  let mode: 'summary' | 'text' | undefined;
  const summaries: string[] = [];
  let openSummary: number | undefined;
  let text = '';
  let textOpen = false;
  let signature = '';
  let encrypted = block.encrypted;
  let details: readonly Entry[] | undefined;
  const at = { item_id: id, output_index: index };

  const item = (status: ItemStatus): Json =>
    reasoningItemOf(
      id,
      summaries,
      mode === 'summary' ? text : undefined,
      carrierFor(
        {
          ...(encrypted !== undefined ? { encrypted } : {}),
          ...(signature !== '' ? { signature } : {}),
          ...(block.redacted !== undefined ? { redacted: block.redacted } : {}),
          ...(details !== undefined ? { details } : {}),
          // What the item shows, which a seal covers.
          text: mode === 'summary' ? text : '',
          summary: summaries,
        },
        ctx,
      ),
      status,
    );

  const closeSummary = (): string => {
    if (openSummary === undefined) return '';
    const i = openSummary;
    const t = summaries[i] ?? '';
    openSummary = undefined;
    return (
      frame('response.reasoning_summary_text.done', { ...at, summary_index: i, text: t }) +
      frame('response.reasoning_summary_part.done', { ...at, summary_index: i, part: { type: 'summary_text', text: t } })
    );
  };

  const summaryDelta = (i: number, t: string): string => {
    let out = '';
    if (openSummary !== i) {
      out += closeSummary();
      while (summaries.length <= i) {
        const k = summaries.length;
        summaries.push('');
        out += frame('response.reasoning_summary_part.added', { ...at, summary_index: k, part: { type: 'summary_text', text: '' } });
        // A skipped summary index (never sent by any decoder) still gets its part closed.
        if (k < i) {
          openSummary = k;
          out += closeSummary();
        }
      }
      openSummary = i;
    }
    summaries[i] = (summaries[i] ?? '') + t;
    return out + frame('response.reasoning_summary_text.delta', { ...at, summary_index: i, delta: t });
  };

  const closeText = (): string => {
    if (!textOpen) return '';
    textOpen = false;
    const content = { ...at, content_index: 0 };
    return (
      frame('response.reasoning_text.done', { ...content, text }) +
      frame('response.content_part.done', { ...content, part: { type: 'reasoning_text', text } })
    );
  };

  const textDelta = (t: string): string => {
    mode ??= 'text';
    if (mode === 'text') {
      text += t;
      return summaryDelta(0, t);
    }
    let out = '';
    if (!textOpen) {
      out += closeSummary();
      textOpen = true;
      out += frame('response.content_part.added', { ...at, content_index: 0, part: { type: 'reasoning_text', text: '' } });
    }
    text += t;
    return out + frame('response.reasoning_text.delta', { ...at, content_index: 0, delta: t });
  };

  return {
    index,
    added: () => reasoningItemOf(id, [], undefined, undefined, 'in_progress'),
    delta(delta) {
      switch (delta.type) {
        case 'reasoning_summary':
          mode ??= 'summary';
          // In text mode part 0 is the text, so the block's own summary parts follow it.
          return summaryDelta(mode === 'text' ? delta.summaryIndex + 1 : delta.summaryIndex, delta.text);
        case 'reasoning':
          return textDelta(delta.text);
        case 'signature':
          signature += delta.signature;
          return '';
        case 'encrypted':
          encrypted = delta.encrypted;
          return '';
        case 'details':
          details = delta.details;
          return '';
        default:
          return '';
      }
    },
    stop() {
      const frames = closeSummary() + closeText();
      const final = item('completed');
      return { frames: frames + frame('response.output_item.done', { output_index: index, item: final }), item: final };
    },
  };
}
