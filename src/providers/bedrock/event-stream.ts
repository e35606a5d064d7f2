/**
 * AWS event-stream, as InvokeModelWithResponseStream answers: binary messages, each a 4-byte total
 * length, headers, a body and checksums, arriving split or joined across TCP chunks however the
 * network cuts them. `FrameReader` cuts the bytes into whole messages (each byte copied at most
 * once); `MessageChecker` verifies each message's checksums and has `@smithy/eventstream-codec`
 * parse its headers.
 */
import { crc32 } from 'node:zlib';
import type { MessageHeaders } from '@smithy/eventstream-codec';

/**
 * The largest message accepted. Bedrock's chunks carry one Anthropic stream event each, far
 * smaller; a length past this is a broken or hostile stream, and holding it would cost memory.
 */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

// Total length (4), headers length (4) and the prelude's checksum (4), then the message's checksum (4).
const MIN_FRAME_BYTES = 16;

/** A Bedrock answer the gateway cannot read: a broken, cut or oversized event-stream message, a chunk without its event, a count without its number. */
export class UnreadableAnswer extends Error {}

export class FrameTooLarge extends UnreadableAnswer {
  constructor(readonly length: number) {
    super(`an event-stream message of ${length} bytes is larger than the limit of ${MAX_FRAME_BYTES}`);
  }
}

/**
 * Cuts a byte stream into whole event-stream messages: `add` each chunk, then take its messages with
 * `next` (pulled one by one rather than returned in an array, which would be one more object per chunk).
 */
export class FrameReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** Adds the next chunk of the stream. */
  add(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
  }

  /** The next whole message, in order; undefined until more bytes are added. */
  next(): Buffer | undefined {
    if (this.pendingBytes < 4) return undefined;
    const length = this.peekLength();
    if (length < MIN_FRAME_BYTES) throw new UnreadableAnswer(`an event-stream message claims ${length} bytes, fewer than its own framing`);
    if (length > MAX_FRAME_BYTES) throw new FrameTooLarge(length);
    if (this.pendingBytes < length) return undefined;
    return this.take(length);
  }

  /** Bytes of an unfinished message left when the stream ended. */
  get leftover(): number {
    return this.pendingBytes;
  }

  private peekLength(): number {
    const first = this.pending[0]!;
    if (first.length >= 4) return first.readUInt32BE(0);
    const head = Buffer.concat(this.pending, 4);
    return head.readUInt32BE(0);
  }

  private take(length: number): Buffer {
    const first = this.pending[0]!;
    let frame: Buffer;
    if (first.length === length) {
      frame = first;
      this.pending.shift();
    } else if (first.length > length) {
      frame = first.subarray(0, length);
      this.pending[0] = first.subarray(length);
    } else {
      const all = Buffer.concat(this.pending, this.pendingBytes);
      frame = all.subarray(0, length);
      this.pending = all.length > length ? [all.subarray(length)] : [];
    }
    this.pendingBytes -= length;
    return frame;
  }
}

/** The codec's header parser, loaded on first use so that a gateway without a bedrock provider never loads it. */
export interface HeaderParser {
  parse(headers: DataView): MessageHeaders;
}

let parser: Promise<HeaderParser> | undefined;

export function headerParser(): Promise<HeaderParser> {
  parser ??= (async () => {
    const [{ HeaderMarshaller }, { fromUtf8 }] = await Promise.all([import('@smithy/eventstream-codec'), import('@smithy/util-utf8')]);
    // The codec reads each header's name and value through this: one decoder for all of them, rather
    // than a Buffer made per string by @smithy/util-utf8's toUtf8, is the cheaper way (docs/performance.md).
    const text = new TextDecoder();
    return new HeaderMarshaller((bytes) => text.decode(bytes), fromUtf8);
  })();
  return parser;
}

// Where a message's headers start: after its total length, its headers' length and the prelude's checksum.
const HEADERS_START = 12;

/**
 * Checks whole messages as the codec's `decode` does, and hands their headers to the codec's own
 * parser: both checksums verified by Node's native CRC32 over the bytes in place, the headers'
 * length checked against the message's. One per stream: a message whose header bytes are those of
 * the one before (a stream's chunks all carry the same three) gets that one's parsed headers again.
 */
export class MessageChecker {
  private lastBlock: Buffer | undefined = undefined;
  private lastHeaders: MessageHeaders | undefined = undefined;

  constructor(private readonly parser: HeaderParser) {}

  /** The headers of one whole message (as `FrameReader` cuts them); UnreadableAnswer when it is broken. */
  headers(frame: Buffer): MessageHeaders {
    const length = frame.length;
    const preludeChecksum = frame.readUInt32BE(8);
    if (crc32(frame.subarray(0, 8)) !== preludeChecksum) throw new UnreadableAnswer("an event-stream message whose prelude checksum does not match");
    // The message's checksum covers everything before it, the prelude's own checksum included.
    if (crc32(frame.subarray(8, length - 4), preludeChecksum) !== frame.readUInt32BE(length - 4)) {
      throw new UnreadableAnswer("an event-stream message whose checksum does not match");
    }
    const headersLength = frame.readUInt32BE(4);
    if (headersLength > length - MIN_FRAME_BYTES) throw new UnreadableAnswer(`an event-stream message claims ${headersLength} bytes of headers in ${length}`);
    const end = HEADERS_START + headersLength;
    if (this.sameBlock(frame, headersLength)) return this.lastHeaders!;
    // A copy in a buffer of its own: the parser reads each name and value as a view of the block's
    // ArrayBuffer, and a length that points past the block must fail there, not read the message's
    // body or whatever else shares the memory.
    const own = new ArrayBuffer(headersLength);
    const block = Buffer.from(own);
    frame.copy(block, 0, HEADERS_START, end);
    let headers: MessageHeaders;
    try {
      headers = this.parser.parse(new DataView(own));
    } catch (err) {
      throw new UnreadableAnswer(`an event-stream message whose headers cannot be read: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.lastBlock = block;
    this.lastHeaders = headers;
    return headers;
  }

  /** Whether the message's header block is the last one's, byte for byte (a loop: a few dozen bytes cost less than a native call). */
  private sameBlock(frame: Buffer, headersLength: number): boolean {
    const last = this.lastBlock;
    if (last === undefined || last.length !== headersLength) return false;
    for (let i = 0; i < headersLength; i++) if (last[i] !== frame[HEADERS_START + i]) return false;
    return true;
  }
}

/** Where a whole message's body starts (its end is 4 bytes before the message's, at its checksum). */
export const bodyStart = (frame: Buffer): number => HEADERS_START + frame.readUInt32BE(4);

/** A string header's value, or undefined. */
export function stringHeader(headers: MessageHeaders, name: string): string | undefined {
  const header = headers[name];
  return header?.type === 'string' ? header.value : undefined;
}
