/**
 * A passthrough answer names the model the caller asked for, as a translated answer does, when the
 * gateway sends the request under another name: the upstream answers with its own (a dated Claude
 * id for the gateway's alias, Bedrock's or Vertex's id, or the id of the model behind them). Claude
 * Code sends signed thinking back only from answers whose `model` is the one it asked for, so under
 * the upstream's name its next tool-loop turn goes without thinking, and Claude with thinking on
 * refuses that turn.
 *
 * A stream's events name the model in `"model":"…"` (Messages' `message_start`, every Chat chunk,
 * Responses' response events); the name in the first one is the answer's, and every later
 * `"model":"<that name>"` is renamed. Everything else a stream carries inside an event (tool input,
 * text) is a JSON string there, where those bytes would be escaped, so a match is always a key of
 * the event's own JSON.
 */
import { renameModel } from '../../translate/rename-model.js';

const MODEL_KEY = Buffer.from('"model":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Renames the model in one answer's stream events. */
export class StreamModelRename {
  private readonly to: Buffer;
  /** `"model":"<the answer's name>"`, once the first event showed it; null: nothing to rename. */
  private from: Buffer | null | undefined = undefined;

  constructor(asked: string) {
    this.to = Buffer.from(`"model":${JSON.stringify(asked)}`);
  }

  /** The events with the answer's model renamed; the same buffer when there is nothing to rename. */
  push(events: Buffer): Buffer {
    if (this.from === undefined) this.from = this.learn(events);
    // Not seen yet (no event named a model so far), or nothing to rename.
    if (this.from === undefined || this.from === null) return events;
    return replaceAll(events, this.from, this.to);
  }

  private learn(events: Buffer): Buffer | null | undefined {
    const at = events.indexOf(MODEL_KEY);
    if (at === -1) return undefined;
    let end = at + MODEL_KEY.length;
    while (end < events.length && events[end] !== QUOTE) {
      // An escaped name is legal JSON, but no provider writes one: such an answer keeps its name.
      if (events[end] === BACKSLASH) return null;
      end++;
    }
    if (end >= events.length) return null;
    const from = events.subarray(at, end + 1);
    return from.equals(this.to) ? null : Buffer.from(from);
  }
}

function replaceAll(events: Buffer, from: Buffer, to: Buffer): Buffer {
  let at = events.indexOf(from);
  if (at === -1) return events;
  const parts: Buffer[] = [];
  let start = 0;
  while (at !== -1) {
    parts.push(events.subarray(start, at), to);
    start = at + from.length;
    at = events.indexOf(from, start);
  }
  parts.push(events.subarray(start));
  return Buffer.concat(parts);
}

/** Whether a passthrough answer is renamed: the request went upstream under another name. */
export const renamesAnswer = (asked: string | undefined, upstream: string | undefined): asked is string =>
  asked !== undefined && upstream !== undefined && asked !== upstream;

/** A whole JSON answer with its root `model` renamed (other bytes untouched); as it came when it has none. */
export function renameInWhole(body: Buffer, asked: string): Buffer {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json) || typeof (json as { model?: unknown }).model !== 'string') return body;
  return renameModel(body, json as Record<string, unknown>, asked);
}
