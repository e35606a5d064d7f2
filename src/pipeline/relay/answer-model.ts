/**
 * A passthrough Messages answer names the model the caller asked for, as a translated answer does,
 * when the gateway sent the request under another name: the upstream answers with its own (a dated
 * Claude id for the gateway's alias, or the id of the model behind a Bedrock or Vertex id). Claude
 * Code sends signed thinking back only from answers whose `model` is the one it asked for, so under
 * the upstream's name its next tool-loop turn goes without thinking, and Claude with thinking on
 * refuses that turn. Which protocols need it is their module's say (`renamesAnswerModel`).
 *
 * The answer's first `"model":"…"` is its own: Messages puts `model` in `message_start` and first in
 * a whole answer, before any content, and everything a stream carries inside an event (tool input,
 * text) is a JSON string there, where those bytes would be escaped.
 */

const MODEL_KEY = Buffer.from('"model":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether a passthrough answer is renamed: the request went upstream under another name. */
export const renamesAnswer = (asked: string | undefined, upstream: string | undefined): asked is string =>
  asked !== undefined && upstream !== undefined && asked !== upstream;

/**
 * `bytes` with the value of their first `"model":"…"` replaced by `asked`; the same buffer when they
 * hold none (`found` false), or hold it escaped (left as it came: no provider writes one).
 */
export function renameFirstModel(bytes: Buffer, asked: string): { readonly out: Buffer; readonly found: boolean } {
  const at = bytes.indexOf(MODEL_KEY);
  if (at === -1) return { out: bytes, found: false };
  const start = at + MODEL_KEY.length;
  let end = start;
  while (end < bytes.length && bytes[end] !== QUOTE && bytes[end] !== BACKSLASH) end++;
  if (end >= bytes.length || bytes[end] === BACKSLASH) return { out: bytes, found: true };
  const name = Buffer.from(JSON.stringify(asked));
  return { out: Buffer.concat([bytes.subarray(0, start - 1), name, bytes.subarray(end + 1)]), found: true };
}

/** Renames the model in one answer's stream: in the first event that names one, and no later. */
export class StreamModelRename {
  private done = false;

  constructor(private readonly asked: string) {}

  push(events: Buffer): Buffer {
    if (this.done) return events;
    const { out, found } = renameFirstModel(events, this.asked);
    this.done = found;
    return out;
  }
}
