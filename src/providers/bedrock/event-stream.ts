/**
 * AWS event-stream, as InvokeModelWithResponseStream answers: binary messages, each a 4-byte total
 * length, headers, a body and checksums, arriving split or joined across TCP chunks however the
 * network cuts them. `FrameReader` cuts the bytes into whole messages (each byte copied at most
 * once); `@smithy/eventstream-codec` checks each message's checksums and parses its headers.
 */
import type { Message } from '@smithy/eventstream-codec';

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

/** Cuts a byte stream into whole event-stream messages. */
export class FrameReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** Adds the next chunk; returns the messages it completed, in order. */
  push(chunk: Buffer): Buffer[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const frames: Buffer[] = [];
    for (;;) {
      if (this.pendingBytes < 4) return frames;
      const length = this.peekLength();
      if (length < MIN_FRAME_BYTES) throw new UnreadableAnswer(`an event-stream message claims ${length} bytes, fewer than its own framing`);
      if (length > MAX_FRAME_BYTES) throw new FrameTooLarge(length);
      if (this.pendingBytes < length) return frames;
      frames.push(this.take(length));
    }
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
    if (first.length >= length) {
      frame = first.subarray(0, length);
      if (first.length === length) this.pending.shift();
      else this.pending[0] = first.subarray(length);
    } else {
      const all = Buffer.concat(this.pending, this.pendingBytes);
      frame = all.subarray(0, length);
      this.pending = all.length > length ? [all.subarray(length)] : [];
    }
    this.pendingBytes -= length;
    return frame;
  }
}

/** The codec, loaded on first use so that a gateway without a bedrock provider never loads it. */
export interface FrameCodec {
  decode(frame: Buffer): Message;
}

let codec: Promise<FrameCodec> | undefined;

export function frameCodec(): Promise<FrameCodec> {
  codec ??= (async () => {
    const [{ EventStreamCodec }, { fromUtf8 }] = await Promise.all([import('@smithy/eventstream-codec'), import('@smithy/util-utf8')]);
    // The codec reads each message's header names and values through this: one decoder for all of them, rather
    // than a Buffer made per string by @smithy/util-utf8's toUtf8, is the cheaper way (docs/performance.md).
    const text = new TextDecoder();
    return new EventStreamCodec((bytes) => text.decode(bytes), fromUtf8);
  })();
  return codec;
}

/** A string header's value, or undefined. */
export function stringHeader(message: Message, name: string): string | undefined {
  const header = message.headers[name];
  return header?.type === 'string' ? header.value : undefined;
}

/** One whole message decoded; the codec's own words when it cannot be (a checksum that does not match, a header it cannot parse). */
export function decodeFrame(decoder: FrameCodec, frame: Buffer): Message {
  try {
    return decoder.decode(frame);
  } catch (err) {
    throw new UnreadableAnswer(err instanceof Error ? err.message : String(err));
  }
}
