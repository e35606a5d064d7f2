/**
 * Chat message content (a string or a list of parts) → IR parts.
 * @see README.md, "Translation" › "What maps to what"
 */
import type { CacheControl, FilePart, ImagePart, TextPart, TranslateContext } from '../../../translate/ir.js';
import { parseDataUrl, sniffMediaType } from '../../../translate/common/data-url.js';
import { isObject, obj, str, warn, type Json } from './read.js';

/**
 * A prompt-cache hint on a part. `cache_control` is the Anthropic-style field
 * OpenRouter and others accept on Chat parts; OpenAI's own
 * `prompt_cache_breakpoint` marks the same thing, an end of a cacheable prefix.
 */
function cacheControlOf(part: Json): { cacheControl?: CacheControl } {
  if (isObject(part.cache_control)) return { cacheControl: part.cache_control };
  if (isObject(part.prompt_cache_breakpoint)) return { cacheControl: { type: 'ephemeral' } };
  return {};
}

const textPart = (text: string, part: Json = {}): TextPart => ({ type: 'text', text, ...cacheControlOf(part) });

/** `system`, `developer` and `tool` content: a string or text parts. */
export function decodeTextContent(content: unknown, ctx: TranslateContext): TextPart[] {
  if (typeof content === 'string') return [textPart(content)];
  const parts: TextPart[] = [];
  for (const part of Array.isArray(content) ? content : []) {
    if (!isObject(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') parts.push(textPart(part.text, part));
    else warn(ctx, `${String(part.type)} content part`);
  }
  return parts;
}

export function decodeImage(part: Json): ImagePart | undefined {
  const image = obj(part.image_url);
  const url = str(image.url) ?? str(part.image_url);
  if (url === undefined) return undefined;
  const inline = parseDataUrl(url);
  const detail = str(image.detail);
  return {
    type: 'image',
    source: inline ? { kind: 'base64', mediaType: inline.mediaType, data: inline.data } : { kind: 'url', url },
    ...(detail !== undefined ? { detail } : {}),
    ...cacheControlOf(part),
  };
}

/** `file_data` is documented as base64 but sent as a data URL in practice; both are read. */
export function decodeFile(part: Json): FilePart | undefined {
  const file = obj(part.file);
  const fileData = str(file.file_data);
  const fileId = str(file.file_id);
  const filename = str(file.filename);
  if (fileData === undefined && fileId === undefined) return undefined;
  const inline = fileData !== undefined ? parseDataUrl(fileData) : undefined;
  const data = inline?.data ?? fileData;
  const mediaType = inline?.mediaType ?? (data !== undefined ? sniffMediaType(data) : undefined);
  return {
    type: 'file',
    ...(mediaType !== undefined ? { mediaType } : {}),
    ...(data !== undefined ? { data } : {}),
    ...(fileId !== undefined ? { fileId } : {}),
    ...(filename !== undefined ? { filename } : {}),
    ...cacheControlOf(part),
  };
}

/** `user` content: text, images, files; audio has no IR form. */
export function decodeUserContent(content: unknown, ctx: TranslateContext): (TextPart | ImagePart | FilePart)[] {
  if (typeof content === 'string') return [textPart(content)];
  const parts: (TextPart | ImagePart | FilePart)[] = [];
  for (const part of Array.isArray(content) ? content : []) {
    if (!isObject(part)) continue;
    let decoded: TextPart | ImagePart | FilePart | undefined;
    switch (part.type) {
      case 'text':
        decoded = typeof part.text === 'string' ? textPart(part.text, part) : undefined;
        break;
      case 'image_url':
        decoded = decodeImage(part);
        break;
      case 'file':
        decoded = decodeFile(part);
        break;
      case 'input_audio':
        warn(ctx, 'audio input');
        continue;
      default:
        warn(ctx, `${String(part.type)} content part`);
        continue;
    }
    if (decoded) parts.push(decoded);
    else warn(ctx, `malformed ${String(part.type)} part`);
  }
  return parts;
}
