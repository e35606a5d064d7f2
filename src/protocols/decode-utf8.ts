/** Bytes to text for the bodies the gateway parses whole (requests, translated answers). */
import { isAscii, isUtf8, transcode } from 'node:buffer';

/** Below this, decoding is a few microseconds whichever way. */
const TRANSCODE_FROM = 16 * 1024;

/**
 * The text `raw.toString('utf8')` gives, sooner. V8's own decoder is fast on ASCII but takes the
 * slow road through the whole text once it meets any other character, where ICU's transcoder to
 * UTF-16, read back as such, is quicker (docs/performance.md, "Decoding large bodies"). Invalid UTF-8 (whose
 * replacement characters ICU may count differently) and Node without ICU take the plain decoder.
 */
export function decodeUtf8(raw: Buffer): string {
  if (raw.length < TRANSCODE_FROM || isAscii(raw) || !isUtf8(raw)) return raw.toString('utf8');
  try {
    return transcode(raw, 'utf8', 'utf16le').toString('utf16le');
  } catch {
    return raw.toString('utf8');
  }
}
