/**
 * IR content parts → Chat content parts, for an upstream request.
 * @see README.md, "Translation" › "What maps to what"
 */
import type { CacheControl, FilePart, ImagePart, TextPart, ToolResultPart, TranslateContext } from '../../../translate/ir.js';
import { toDataUrl } from '../../../translate/common/data-url.js';
import { warn, type Json } from './read.js';

export interface EncodeState {
  readonly ctx: TranslateContext;
  /** `compatible` servers get the widely supported dialect; `openai` today's. */
  readonly compatible: boolean;
}

/**
 * OpenRouter and other compatible servers accept Anthropic-style `cache_control`
 * on parts; OpenAI caches prompt prefixes by itself, so for OpenAI the hint is
 * simply not needed (and not reported as a loss, as on the Responses path).
 */
export function cacheField(cacheControl: CacheControl | undefined, enc: EncodeState): Json {
  if (cacheControl === undefined || !enc.compatible) return {};
  return { cache_control: cacheControl };
}

/** Chat image `detail` is auto/low/high; Responses' `original` is the nearest to `high`. */
const chatDetail = (detail: string | undefined) => (detail === 'original' ? 'high' : detail);

function imagePart(part: ImagePart, enc: EncodeState): Json | undefined {
  const src = part.source;
  if (src.kind === 'file') {
    warn(enc.ctx, 'image file id');
    return undefined;
  }
  const detail = chatDetail(part.detail);
  return {
    type: 'image_url',
    image_url: { url: src.kind === 'url' ? src.url : toDataUrl(src.mediaType, src.data), ...(detail !== undefined ? { detail } : {}) },
    ...cacheField(part.cacheControl, enc),
  };
}

/**
 * Files: provider ids and inline data as `file` parts (OpenAI reads a data URL
 * with a filename), plain-text documents as text. Chat has no file URLs.
 */
function filePart(part: FilePart, enc: EncodeState): Json | undefined {
  const cache = cacheField(part.cacheControl, enc);
  if (part.text !== undefined) return { type: 'text', text: part.text, ...cache };
  if (part.fileId !== undefined) {
    return { type: 'file', file: { file_id: part.fileId, ...(part.filename !== undefined ? { filename: part.filename } : {}) }, ...cache };
  }
  if (part.data !== undefined) {
    const mediaType = part.mediaType ?? 'application/pdf';
    const filename = part.filename ?? (mediaType === 'application/pdf' ? 'document.pdf' : 'document');
    return { type: 'file', file: { file_data: toDataUrl(mediaType, part.data), filename }, ...cache };
  }
  warn(enc.ctx, 'file url');
  return undefined;
}

export function contentPart(part: TextPart | ImagePart | FilePart, enc: EncodeState): Json | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text, ...cacheField(part.cacheControl, enc) };
    case 'image':
      return imagePart(part, enc);
    case 'file':
      return filePart(part, enc);
  }
}

/** User content: one plain text part goes as a string, which every server accepts. */
export function userContent(parts: readonly (TextPart | ImagePart | FilePart)[], enc: EncodeState): string | Json[] {
  const only = parts[0];
  if (parts.length === 1 && only?.type === 'text' && (only.cacheControl === undefined || !enc.compatible)) {
    cacheField(only.cacheControl, enc);
    return only.text;
  }
  return parts.map((p) => contentPart(p, enc)).filter((p): p is Json => p !== undefined);
}

/**
 * Text-only content (system prompts), joined: several local servers take only a
 * string there. Parts stay apart only to carry cache hints to a compatible server.
 */
export function joinedText(parts: readonly TextPart[], enc: EncodeState): string | Json[] {
  if (enc.compatible && parts.some((p) => p.cacheControl !== undefined)) {
    return parts.map((p) => ({ type: 'text', text: p.text, ...cacheField(p.cacheControl, enc) }));
  }
  for (const p of parts) cacheField(p.cacheControl, enc);
  return parts.map((p) => p.text).join('\n\n');
}

export interface EncodedToolResult {
  readonly message: Json;
  /** Images and binary files, which a `tool` message cannot hold: they go in a user message after the results. */
  readonly moved: (ImagePart | FilePart)[];
}

/** One tool result → a `tool` message (text only; Chat has no error flag). */
export function toolResultMessage(part: ToolResultPart, enc: EncodeState): EncodedToolResult {
  const texts: string[] = [];
  const moved: (ImagePart | FilePart)[] = [];
  for (const c of part.content) {
    if (c.type === 'text') texts.push(c.text);
    else if (c.type === 'file' && c.text !== undefined) texts.push(c.text);
    else moved.push(c);
  }
  if (moved.some((c) => c.type === 'image')) warn(enc.ctx, 'image in tool result moved');
  if (moved.some((c) => c.type === 'file')) warn(enc.ctx, 'file in tool result moved');
  if (part.isError) warn(enc.ctx, 'tool error flag');
  // Where a compatible server could have cached, a hint on a tool message is a real loss; OpenAI caches by itself.
  if (enc.compatible && (part.cacheControl !== undefined || part.content.some((c) => c.cacheControl !== undefined))) warn(enc.ctx, 'cache_control');
  return { message: { role: 'tool', tool_call_id: part.callId, content: texts.join('\n\n') }, moved };
}
