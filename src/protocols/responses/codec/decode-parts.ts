/**
 * Responses content parts (`input_text`, `input_image`, `input_file`, and the
 * `output_text`/`refusal` of replayed assistant messages) → IR parts.
 */
import { invalidRequest } from '../../../errors.js';
import { isObject, type Json } from '../../shallow.js';
import type { FilePart, ImagePart, TextPart, TranslateContext } from '../../../translate/ir.js';
import { parseDataUrl } from '../../../translate/common/data-url.js';
import { str, warn } from './read.js';

export type InputPart = TextPart | ImagePart | FilePart;

function imagePart(part: Json, where: string): ImagePart {
  const detail = str(part.detail);
  const withDetail = detail !== undefined ? { detail } : {};
  const url = str(part.image_url);
  if (url !== undefined) {
    const inline = parseDataUrl(url);
    const source = inline ? { kind: 'base64' as const, ...inline } : { kind: 'url' as const, url };
    return { type: 'image', source, ...withDetail };
  }
  const fileId = str(part.file_id);
  if (fileId !== undefined) return { type: 'image', source: { kind: 'file', fileId }, ...withDetail };
  throw invalidRequest('An `input_image` part needs `image_url` or `file_id`.', where);
}

function filePart(part: Json): FilePart {
  const file: { -readonly [K in keyof FilePart]: FilePart[K] } = { type: 'file' };
  const data = str(part.file_data);
  if (data !== undefined) {
    // Responses wants a data URL here; a bare base64 string is taken as it is.
    const inline = parseDataUrl(data);
    if (inline) {
      file.mediaType = inline.mediaType;
      file.data = inline.data;
    } else file.data = data;
  }
  const url = str(part.file_url);
  if (url !== undefined) file.url = url;
  const fileId = str(part.file_id);
  if (fileId !== undefined) file.fileId = fileId;
  const filename = str(part.filename);
  if (filename !== undefined) file.filename = filename;
  return file;
}

/** One content part → IR, or undefined (with a warning) for parts the IR cannot carry. */
export function decodeInputPart(part: unknown, ctx: TranslateContext, where: string): InputPart | undefined {
  if (!isObject(part)) throw invalidRequest(`\`${where}\` must be an object.`, where);
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: str(part.text) ?? '' };
    case 'input_image':
      return imagePart(part, where);
    case 'input_file':
      return filePart(part);
    default:
      warn(ctx, `${String(part.type)} content`);
      return undefined;
  }
}

/** A message's or a tool output's `content`/`output`: a string or a list of parts. */
export function decodeInputContent(content: unknown, ctx: TranslateContext, where: string): InputPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (content === undefined || content === null) return [];
  if (!Array.isArray(content)) throw invalidRequest(`\`${where}\` must be a string or an array of content parts.`, where);
  const parts: InputPart[] = [];
  content.forEach((p: unknown, i) => {
    const part = decodeInputPart(p, ctx, `${where}[${i}]`);
    if (part) parts.push(part);
  });
  return parts;
}
