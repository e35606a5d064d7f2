/**
 * Chat and Responses carry inline images and files as `data:` URLs; the IR keeps
 * the media type and the base64 payload apart (Anthropic wants them so).
 */

export interface Base64Data {
  readonly mediaType: string;
  readonly data: string;
}

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*);base64,/i;

/** `data:<type>[;params];base64,<data>` → its parts; anything else (http URLs, non-base64 data URLs) → undefined. */
export function parseDataUrl(url: string): Base64Data | undefined {
  const m = DATA_URL.exec(url);
  if (!m) return undefined;
  return { mediaType: m[1] || 'application/octet-stream', data: url.slice(m[0].length) };
}

export const toDataUrl = (mediaType: string, data: string): string => `data:${mediaType};base64,${data}`;

/** Bare base64 file data says nothing of its type; PDFs (the common case) announce themselves with `%PDF-`. */
export const sniffMediaType = (base64: string): string | undefined =>
  base64.startsWith('JVBERi0') ? 'application/pdf' : undefined;
