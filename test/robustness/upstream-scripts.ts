/**
 * Fake-upstream behaviours for the robustness suite: streams that never end,
 * streams that flood (to see back-pressure), streams that trickle. Each picks
 * the protocol's frames from the path the gateway called.
 */
import type { ServerResponse } from 'node:http';
import { chatFrames, messageFrames, responsesFrames, sse } from '../helpers/canned.js';
import type { Behaviour, Received } from '../helpers/received.js';
import { sleep, within, type Protocol } from './helpers.js';

export function upstreamProtocol(req: Received): Protocol {
  const path = req.url.split('?')[0] ?? '';
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/responses')) return 'responses';
  return 'messages';
}

const modelOf = (req: Received) => {
  const json = req.json as { model?: unknown } | undefined;
  return typeof json?.model === 'string' ? json.model : 'unknown';
};

export function framesFor(req: Received): string[] {
  const model = modelOf(req);
  switch (upstreamProtocol(req)) {
    case 'chat':
      return chatFrames(model, false);
    case 'responses':
      return responsesFrames(model);
    case 'messages':
      return messageFrames(model);
  }
}

/** Resolves true on `drain`, false when the response closes first. */
export function drained(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const onDrain = () => {
      res.off('close', onClose);
      resolve(true);
    };
    const onClose = () => {
      res.off('drain', onDrain);
      resolve(false);
    };
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/** The start of the protocol's stream, then SSE comments every 20 ms until the gateway hangs up (10 s at most). */
export const neverEndingStream: Behaviour = async (req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const frames = framesFor(req);
  res.write(frames.slice(0, frames.length - 3).join(''));
  for (let i = 0; i < 500 && !res.destroyed; i++) {
    res.write(': keep-alive\n\n');
    await sleep(20);
  }
  res.end();
};

/** The canned stream with a pause between frames (so a soak's aborts land mid-stream). */
export function slowStream(gapMs: number): Behaviour {
  return async (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const frame of framesFor(req)) {
      if (res.destroyed) return;
      res.write(frame);
      await sleep(gapMs);
    }
    res.end();
  };
}

export interface FloodReport {
  /** Bytes written when a write first stayed un-drained for `stallMs`. */
  stalledAt?: number;
  written: number;
  /** Text deltas written, each of FLOOD_DELTA characters `~`. */
  deltas: number;
  done: boolean;
}

/** Characters per flood delta; `~` appears nowhere else in any protocol's frames. */
export const FLOOD_DELTA = 64 * 1024;

/** One text delta of `text` in the protocol's own framing. */
function deltaFrame(protocol: Protocol, model: string, text: string): string {
  switch (protocol) {
    case 'chat':
      return sse({ id: 'chatcmpl-flood', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });
    case 'messages':
      return sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta');
    case 'responses':
      return sse({ type: 'response.output_text.delta', sequence_number: 0, item_id: 'msg_up1', output_index: 0, content_index: 0, delta: text }, 'response.output_text.delta');
  }
}

/**
 * A stream of text deltas written as fast as the gateway takes them: a write that returns false
 * waits for `drain`. Reports the bytes written when a drain first took longer than `stallMs` (the
 * gateway stopped reading: back-pressure reached the upstream), and ends the stream once that
 * drain came, or after `total` bytes if it never stalls.
 */
export function floodStream(total: number, report: FloodReport, stallMs = 400): Behaviour {
  return async (req, res) => {
    const protocol = upstreamProtocol(req);
    const frames = framesFor(req);
    const model = modelOf(req);
    // The protocol's start (up to the first text delta) and end (from the end of the text block).
    const firstDelta = { chat: 1, messages: 3, responses: 4 }[protocol];
    const endAt = protocol === 'chat' ? frames.length - 2 : protocol === 'messages' ? frames.length - 3 : frames.length - 4;
    const frame = deltaFrame(protocol, model, '~'.repeat(FLOOD_DELTA));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(frames.slice(0, firstDelta).join(''));
    while (report.written < total && !res.destroyed) {
      report.written += frame.length;
      report.deltas++;
      if (!res.write(frame)) {
        const waiting = drained(res);
        const quick = await within(waiting, stallMs, 'slow' as const);
        if (quick === 'slow') {
          report.stalledAt = report.written;
          if (!(await waiting)) return;
          break;
        }
        if (!quick) return;
      }
    }
    // Text events of Responses carry the final text; the canned ones say something else, so end with the completion only.
    res.end(protocol === 'responses' ? frames.at(-1) : frames.slice(endAt).join(''));
    report.done = true;
  };
}
