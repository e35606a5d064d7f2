/**
 * Gemini `inlineData` (base64 with its MIME type) and `fileData` (a URI) ⇄ IR images and files.
 * Images stay images; anything else (PDFs above all) is a file. Another provider's file ids mean
 * nothing to Gemini, and are dropped with a warning.
 */
import { parseDataUrl, sniffMediaType } from '../../../translate/common/data-url.js';
import type * as Ir from '../../../translate/ir.js';
import { isObject, type Json, str, warn } from './read.js';
import type { Part } from './wire.js';

export function decodeMedia(part: Json, ctx: Ir.TranslateContext): Ir.ImagePart | Ir.FilePart | undefined {
  if (isObject(part.inlineData)) {
    const mediaType = str(part.inlineData.mimeType) ?? 'application/octet-stream';
    const data = str(part.inlineData.data) ?? '';
    return mediaType.startsWith('image/') ? { type: 'image', source: { kind: 'base64', mediaType, data } } : { type: 'file', mediaType, data };
  }
  if (isObject(part.fileData)) {
    const mediaType = str(part.fileData.mimeType);
    const url = str(part.fileData.fileUri) ?? '';
    const filename = str(part.fileData.displayName);
    if (mediaType?.startsWith('image/')) return { type: 'image', source: { kind: 'url', url } };
    return { type: 'file', url, ...(mediaType !== undefined ? { mediaType } : {}), ...(filename !== undefined ? { filename } : {}) };
  }
  if (part.videoMetadata !== undefined) warn(ctx, 'videoMetadata');
  return undefined;
}

/** A MIME type from a URL's extension, for `fileData`, which wants one. */
function typeFromUrl(url: string): string | undefined {
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase();
  switch (ext) {
    case 'png':
      return 'image/png';
    case 'jpg':
    case 'jpeg':
      return 'image/jpeg';
    case 'webp':
      return 'image/webp';
    case 'gif':
      return 'image/gif';
    case 'pdf':
      return 'application/pdf';
    case 'txt':
      return 'text/plain';
    default:
      return undefined;
  }
}

function fromUrl(url: string, mediaType: string | undefined, fallback: string): Part {
  const inline = parseDataUrl(url);
  if (inline) return { inlineData: { mimeType: mediaType ?? inline.mediaType, data: inline.data } };
  return { fileData: { mimeType: mediaType ?? typeFromUrl(url) ?? fallback, fileUri: url } };
}

export function encodeImage(part: Ir.ImagePart, ctx: Ir.TranslateContext): Part | undefined {
  // `detail` is an OpenAI resolution hint; Gemini sizes images itself.
  if (part.detail !== undefined && part.detail !== 'auto') warn(ctx, 'image detail');
  const source = part.source;
  switch (source.kind) {
    case 'base64': {
      const inline = parseDataUrl(source.data);
      return { inlineData: { mimeType: inline?.mediaType ?? source.mediaType, data: inline?.data ?? source.data } };
    }
    case 'url':
      return fromUrl(source.url, undefined, 'image/jpeg');
    case 'file':
      warn(ctx, 'file id reference');
      return undefined;
  }
}

export function encodeFile(part: Ir.FilePart, ctx: Ir.TranslateContext): Part | undefined {
  if (part.text !== undefined) return { text: part.filename !== undefined ? `${part.filename}\n\n${part.text}` : part.text };
  if (part.data !== undefined) {
    const inline = parseDataUrl(part.data);
    const data = inline?.data ?? part.data;
    return { inlineData: { mimeType: part.mediaType ?? inline?.mediaType ?? sniffMediaType(data) ?? 'application/pdf', data } };
  }
  // A file name has no place in a Gemini request (`displayName` is for server-side tools only).
  if (part.url !== undefined) return fromUrl(part.url, part.mediaType, 'application/pdf');
  if (part.fileId !== undefined) warn(ctx, 'file id reference');
  return undefined;
}
