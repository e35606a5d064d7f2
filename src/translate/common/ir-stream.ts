/**
 * IR stream ⇄ IR response. `responseToEvents` replays a complete response as
 * a stream (an upstream that answered JSON to a streaming request, and tests);
 * `accumulateEvents` folds a stream into the response it describes, checking
 * the order rules every decoder must keep (blocks sequential, indexes in order,
 * one start and one finish).
 */
import type * as Ir from '../ir.js';

export function responseToEvents(res: Ir.Response): Ir.StreamEvent[] {
  const events: Ir.StreamEvent[] = [{ type: 'start', id: res.id, model: res.model, created: res.created, usage: { inputTokens: res.usage.inputTokens } }];
  res.content.forEach((part, index) => {
    switch (part.type) {
      case 'text':
        events.push({ type: 'block_start', index, block: { type: 'text' } });
        if (part.text) events.push({ type: 'block_delta', index, delta: { type: 'text', text: part.text } });
        break;
      case 'refusal':
        events.push({ type: 'block_start', index, block: { type: 'refusal' } });
        events.push({ type: 'block_delta', index, delta: { type: 'refusal', text: part.text } });
        break;
      case 'reasoning': {
        const block: Ir.BlockStart = {
          type: 'reasoning',
          ...(part.id !== undefined ? { id: part.id } : {}),
          ...(part.redacted !== undefined ? { redacted: part.redacted } : {}),
          ...(part.encrypted !== undefined ? { encrypted: part.encrypted } : {}),
        };
        events.push({ type: 'block_start', index, block });
        const summary = part.summary ?? [];
        for (let summaryIndex = 0; summaryIndex < summary.length; summaryIndex++) {
          events.push({ type: 'block_delta', index, delta: { type: 'reasoning_summary', summaryIndex, text: summary[summaryIndex]! } });
        }
        if (part.text) events.push({ type: 'block_delta', index, delta: { type: 'reasoning', text: part.text } });
        if (part.signature) events.push({ type: 'block_delta', index, delta: { type: 'signature', signature: part.signature } });
        if (part.details !== undefined) events.push({ type: 'block_delta', index, delta: { type: 'details', details: part.details } });
        break;
      }
      case 'tool_call':
        events.push({
          type: 'block_start',
          index,
          block: {
            type: 'tool_call',
            id: part.id,
            name: part.name,
            kind: part.kind,
            ...(part.namespace !== undefined ? { namespace: part.namespace } : {}),
            ...(part.itemId !== undefined ? { itemId: part.itemId } : {}),
          },
        });
        if (part.arguments) events.push({ type: 'block_delta', index, delta: { type: 'arguments', text: part.arguments } });
        break;
    }
    events.push({ type: 'block_stop', index });
  });
  events.push({
    type: 'finish',
    stopReason: res.stopReason,
    ...(res.stopSequence !== undefined ? { stopSequence: res.stopSequence } : {}),
    usage: res.usage,
  });
  return events;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Folds IR events into a response; throws on an event order no encoder could render. */
export function accumulateEvents(events: readonly Ir.StreamEvent[]): Ir.Response {
  let start: Extract<Ir.StreamEvent, { type: 'start' }> | undefined;
  let finish: Extract<Ir.StreamEvent, { type: 'finish' }> | undefined;
  const content: Mutable<Ir.AssistantPart>[] = [];
  let open: number | undefined;
  for (const ev of events) {
    if (finish) throw new Error(`event ${ev.type} after finish`);
    if (ev.type !== 'start' && !start) throw new Error(`event ${ev.type} before start`);
    switch (ev.type) {
      case 'start':
        if (start) throw new Error('second start');
        start = ev;
        break;
      case 'block_start': {
        if (open !== undefined) throw new Error(`block ${ev.index} started while block ${open} is open`);
        if (ev.index !== content.length) throw new Error(`block index ${ev.index}, expected ${content.length}`);
        open = ev.index;
        const b = ev.block;
        if (b.type === 'text') content.push({ type: 'text', text: '' });
        else if (b.type === 'refusal') content.push({ type: 'refusal', text: '' });
        else if (b.type === 'reasoning') {
          content.push({
            type: 'reasoning',
            text: '',
            ...(b.id !== undefined ? { id: b.id } : {}),
            ...(b.redacted !== undefined ? { redacted: b.redacted } : {}),
            ...(b.encrypted !== undefined ? { encrypted: b.encrypted } : {}),
          });
        } else {
          content.push({
            type: 'tool_call',
            id: b.id,
            name: b.name,
            kind: b.kind,
            arguments: '',
            ...(b.namespace !== undefined ? { namespace: b.namespace } : {}),
            ...(b.itemId !== undefined ? { itemId: b.itemId } : {}),
          });
        }
        break;
      }
      case 'block_delta': {
        if (ev.index !== open) throw new Error(`delta for block ${ev.index} while ${String(open)} is open`);
        const part = content[ev.index]!;
        const d = ev.delta;
        if (d.type === 'text' && part.type === 'text') part.text += d.text;
        else if (d.type === 'refusal' && part.type === 'refusal') part.text += d.text;
        else if (d.type === 'reasoning' && part.type === 'reasoning') part.text += d.text;
        else if (d.type === 'reasoning_summary' && part.type === 'reasoning') {
          const summary = [...(part.summary ?? [])];
          summary[d.summaryIndex] = (summary[d.summaryIndex] ?? '') + d.text;
          part.summary = summary;
        }
        else if (d.type === 'signature' && part.type === 'reasoning') part.signature = (part.signature ?? '') + d.signature;
        else if (d.type === 'encrypted' && part.type === 'reasoning') part.encrypted = d.encrypted;
        else if (d.type === 'details' && part.type === 'reasoning') part.details = d.details;
        else if (d.type === 'arguments' && part.type === 'tool_call') part.arguments += d.text;
        else throw new Error(`${d.type} delta on a ${part.type} block`);
        break;
      }
      case 'block_stop':
        if (ev.index !== open) throw new Error(`stop for block ${ev.index} while ${String(open)} is open`);
        open = undefined;
        break;
      case 'finish':
        if (open !== undefined) throw new Error(`finish while block ${open} is open`);
        finish = ev;
        break;
      case 'error':
        throw new Error(`stream error: ${ev.message}`);
    }
  }
  if (!start || !finish) throw new Error('stream without start or finish');
  return {
    id: start.id,
    model: start.model,
    created: start.created,
    content,
    stopReason: finish.stopReason,
    ...(finish.stopSequence !== undefined ? { stopSequence: finish.stopSequence } : {}),
    usage: finish.usage,
  };
}
