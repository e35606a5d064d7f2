/**
 * The list's prompt preview: the start of the last text the user wrote, read from a request body in
 * the caller's protocol. Plain reads of the parsed body with bounded loops; anything unexpected gives
 * no preview rather than an error.
 */
import type { Protocol } from '../../protocols/types.js';

export const PREVIEW_CHARS = 140;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The text of a content value: a string, or the text parts of a list (`text`, `input_text`). */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let out: string | undefined;
  for (const part of content) {
    if (isObj(part) && typeof part.text === 'string' && (part.type === undefined || part.type === 'text' || part.type === 'input_text')) out = part.text;
  }
  return out;
}

/** The last entry of `list` with `role` `user` that has text. */
function lastUserText(list: unknown, key: 'content' | 'parts'): string | undefined {
  if (!Array.isArray(list)) return undefined;
  for (let i = list.length - 1; i >= 0; i--) {
    const m: unknown = list[i];
    if (!isObj(m) || m.role !== 'user') continue;
    const text = key === 'parts' ? textOf(m.parts) : textOf(m.content);
    if (text !== undefined && text.trim() !== '') return text;
  }
  return undefined;
}

export function promptPreview(protocol: Protocol | undefined, body: unknown): string | undefined {
  if (!isObj(body)) return undefined;
  let text: string | undefined;
  switch (protocol) {
    case 'chat':
    case 'messages':
      text = lastUserText(body.messages, 'content');
      break;
    case 'responses':
      text = typeof body.input === 'string' ? body.input : lastUserText(body.input, 'content');
      break;
    case 'gemini':
      text = lastUserText(body.contents, 'parts');
      break;
    case undefined:
      return undefined;
  }
  if (text === undefined) return undefined;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
}
