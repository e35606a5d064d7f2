/**
 * IR images and files → Anthropic `image` and `document` blocks. Anthropic wants
 * bare base64 with a separate media type (no `data:` URL), http(s) URLs as `url`
 * sources, PDFs and plain text as documents. Provider file ids are not portable
 * between providers, so they are dropped with a warning.
 * @see README.md, "Translation" › "What maps to what"
 */
import type { Json } from '../../shallow.js';
import type * as Ir from '../../../translate/ir.js';
import { parseDataUrl } from '../../../translate/common/data-url.js';
import { warn, writeCache } from './read.js';

interface DataUrl {
  readonly mediaType: string | undefined;
  readonly data: string;
}

/** Base64 data that may arrive as a `data:` URL (Chat's `file_data`, some image payloads). */
function bareBase64(data: string, mediaType: string | undefined): DataUrl {
  const parsed = parseDataUrl(data);
  return parsed ? { mediaType: mediaType ?? parsed.mediaType, data: parsed.data } : { mediaType, data };
}

const base64Source = (mediaType: string, data: string) => ({ type: 'base64', media_type: mediaType, data });

export function encodeImage(part: Ir.ImagePart, ctx: Ir.TranslateContext): Json | undefined {
  const source = part.source;
  // `detail` is an OpenAI resolution hint; Anthropic sizes images itself.
  if (part.detail !== undefined && part.detail !== 'auto') warn(ctx, 'image detail');
  let wire: Json;
  if (source.kind === 'base64') {
    const { mediaType, data } = bareBase64(source.data, source.mediaType);
    wire = base64Source(mediaType ?? 'image/png', data);
  } else if (source.kind === 'url') {
    const inline = parseDataUrl(source.url);
    wire = inline ? base64Source(inline.mediaType ?? 'image/png', inline.data) : { type: 'url', url: source.url };
  } else {
    warn(ctx, 'file id reference');
    return undefined;
  }
  return { type: 'image', source: wire, ...writeCache(part) };
}

/** Documents without a media type are PDFs unless their name says otherwise (Chat's `file` parts carry only a name). */
function guessMediaType(filename: string | undefined): string | undefined {
  if (filename === undefined || /\.pdf$/i.test(filename)) return 'application/pdf';
  if (/\.(txt|md|csv)$/i.test(filename)) return 'text/plain';
  return undefined;
}

const decodeBase64Text = (data: string): string => Buffer.from(data, 'base64').toString('utf8');

export function encodeFile(part: Ir.FilePart, ctx: Ir.TranslateContext): Json | undefined {
  const extra = { ...(part.filename !== undefined ? { title: part.filename } : {}), ...writeCache(part) };
  const document = (source: Json): Json => ({ type: 'document', source, ...extra });
  if (part.text !== undefined) return document({ type: 'text', media_type: 'text/plain', data: part.text });
  if (part.data !== undefined) {
    const { mediaType, data } = bareBase64(part.data, part.mediaType);
    const type = mediaType ?? guessMediaType(part.filename);
    if (type === 'application/pdf') return document(base64Source(type, data));
    if (type?.startsWith('text/')) return document({ type: 'text', media_type: 'text/plain', data: decodeBase64Text(data) });
    if (type?.startsWith('image/')) return { type: 'image', source: base64Source(type, data), ...writeCache(part) };
    warn(ctx, `${type ?? 'unknown'} file`);
    return undefined;
  }
  if (part.url !== undefined) {
    const inline = parseDataUrl(part.url);
    if (inline) {
      const { url: _url, ...rest } = part;
      return encodeFile({ ...rest, data: part.url }, ctx);
    }
    return document({ type: 'url', url: part.url });
  }
  if (part.fileId !== undefined) warn(ctx, 'file id reference');
  return undefined;
}
