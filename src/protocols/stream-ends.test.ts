/**
 * The contract every stream follower keeps with `STREAM_ENDS`: at every cut point of every
 * stream fixture, the passthrough watcher (fed the raw bytes through its skipping decoder),
 * the translator's decoder and replay's summary agree on whether the stream has ended, and
 * the watcher's usage of a whole stream is what the SDK's final object reports.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarise } from '../replay/summary.js';
import { createSseDecoder, type SseEvent } from '../sse/parse.js';
import { skippingDecoder } from '../sse/skip.js';
import { codecs } from '../translate/codecs.js';
import type * as Ir from '../translate/ir.js';
import { parseJson } from './json.js';
import { protocols } from './registry.js';
import { isObject } from './shallow.js';
import { eventTypeOf, STREAM_ENDS, streamEndOf } from './stream-ends.js';
import { PROTOCOLS, type Protocol, type Usage } from './types.js';
import { answerContext } from '../translate/context.js';

const FIXTURES = import.meta.dirname;

/** The stream fixtures of a protocol, with their SDK-assembled answer where one was recorded. */
function fixtures(protocol: Protocol): { name: string; sse: string; answer?: unknown }[] {
  const dir = join(FIXTURES, protocol, 'codec', 'fixtures');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sse'))
    .map((f) => {
      const json = join(dir, f.replace(/\.sse$/, '.json'));
      return {
        name: f,
        sse: readFileSync(join(dir, f), 'utf8'),
        ...(existsSync(json) ? { answer: JSON.parse(readFileSync(json, 'utf8')) as unknown } : {}),
      };
    });
}

/** Each event's own text (ended by its blank line), so a cut after event k is the first k texts. */
function splitEvents(sse: string): { text: string; event: SseEvent }[] {
  const out: { text: string; event: SseEvent }[] = [];
  for (const block of sse.replace(/\r\n/g, '\n').split(/\n\n/)) {
    if (block.trim() === '') continue;
    const text = `${block}\n\n`;
    const events = createSseDecoder().push(text);
    if (events.length === 1) out.push({ text, event: events[0]! });
  }
  return out;
}

/** The type an event has for the table: its name, else its data's `type` (Gemini's: what it holds), else Chat's `[DONE]` or error chunk. */
function typeOf(protocol: Protocol, { event, data }: SseEvent): string {
  const json = parseJson(data);
  if (event !== undefined || isObject(json)) return eventTypeOf(protocol, event, json);
  return protocol === 'chat' ? data.trim() : 'data';
}

/** Chat's extra end: a chunk whose first choice has a finish_reason (see STREAM_ENDS). */
function chatFinishChunk({ data }: SseEvent): boolean {
  const json = parseJson(data);
  if (!isObject(json) || !Array.isArray(json.choices)) return false;
  return json.choices.some((c) => isObject(c) && typeof c.finish_reason === 'string' && c.finish_reason !== '');
}

/** What the table says about the first `k` events. */
function expected(protocol: Protocol, events: readonly SseEvent[]): { finished: boolean; proper: boolean } {
  let finished = false;
  let proper = false;
  for (const e of events) {
    const end = streamEndOf(protocol, typeOf(protocol, e));
    if (end === 'proper') proper = true;
    if (end !== undefined || (protocol === 'chat' && chatFinishChunk(e))) finished = true;
  }
  return { finished, proper };
}

function watch(protocol: Protocol, texts: readonly string[]): { finished: boolean; usage: Usage } {
  const w = protocols[protocol].watchStream();
  const decoder = skippingDecoder(createSseDecoder(), w.skip);
  // One chunk per event, as most upstreams send them, so the skip rule is exercised on each.
  for (const text of texts) for (const e of decoder.push(Buffer.from(text))) w.onEvent(e);
  for (const e of decoder.end()) w.onEvent(e);
  return { finished: w.finished, usage: w.usage };
}

function decode(protocol: Protocol, events: readonly SseEvent[]): Ir.StreamEvent[] {
  const decoder = codecs[protocol].decodeStream(answerContext(protocol, '', { now: () => 0, newId: (prefix) => prefix }));
  const out: Ir.StreamEvent[] = [];
  for (const e of events) out.push(...decoder.push(e));
  out.push(...decoder.end());
  return out;
}

const cases = PROTOCOLS.flatMap((protocol) => fixtures(protocol).map((f) => ({ protocol, ...f })));

describe('STREAM_ENDS', () => {
  it('has fixtures for every protocol, with proper and error ends among them', () => {
    for (const protocol of PROTOCOLS) {
      const all = cases.filter((c) => c.protocol === protocol);
      expect(all.length).toBeGreaterThan(0);
      const finals = all.map((c) => expected(protocol, splitEvents(c.sse).map((x) => x.event)));
      expect(finals.some((f) => f.proper)).toBe(true);
      expect(finals.some((f) => f.finished && !f.proper)).toBe(true);
    }
  });

  it('never names one event both a proper end and an error', () => {
    for (const protocol of PROTOCOLS) {
      const { proper, error } = STREAM_ENDS[protocol];
      expect(proper.filter((t: string) => (error as readonly string[]).includes(t))).toEqual([]);
    }
  });

  describe.each(cases)('$protocol $name', ({ protocol, sse, answer }) => {
    const parts = splitEvents(sse);
    const cuts = Array.from({ length: parts.length + 1 }, (_, k) => k);

    // A stream can be as short as one event (Gemini answers a short prompt in one chunk): what counts
    // is that the split lost none, so that every cut point below is a real one.
    it('splits into the events a decoder reads from it whole', () => {
      const decoder = createSseDecoder();
      const whole = [...decoder.push(sse), ...decoder.end()];
      expect(parts.length).toBeGreaterThan(0);
      expect(parts.map((p) => p.event)).toEqual(whole);
    });

    it.each(cuts)('agrees on the end after %i events', (k) => {
      const events = parts.slice(0, k).map((p) => p.event);
      const want = expected(protocol, events);
      expect(watch(protocol, parts.slice(0, k).map((p) => p.text)).finished).toBe(want.finished);
      const ir = decode(protocol, events);
      expect(ir.some((e) => e.type === 'finish' || e.type === 'error')).toBe(want.finished);
      const summary = summarise(protocol, { bytes: 0, events: events.map((e) => ({ t: 0, ...(e.event !== undefined ? { event: e.event } : {}), data: parseJson(e.data) ?? e.data })) }, 200);
      expect(summary.ended).toBe(want.proper);
    });

    it('reports the usage the SDK reports, and the decoder agrees', () => {
      const whole = watch(protocol, parts.map((p) => p.text));
      const finish = decode(protocol, parts.map((p) => p.event)).find((e) => e.type === 'finish');
      if (answer !== undefined) expect(whole.usage).toEqual(protocols[protocol].usage(answer));
      if (finish?.type === 'finish' && Object.keys(whole.usage).length > 0) {
        expect(whole.usage.inputTokens).toBe(finish.usage.inputTokens);
        expect(whole.usage.outputTokens).toBe(finish.usage.outputTokens);
        expect(whole.usage.cachedTokens ?? 0).toBe(finish.usage.cacheReadTokens ?? 0);
      }
    });
  });
});
