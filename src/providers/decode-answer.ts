/**
 * Compressed upstream answers. The gateway asks for none (`accept-encoding: identity`), but an
 * upstream may compress anyway, and a compressed body can be neither translated, nor read for
 * usage, nor followed by the gateway's own error event. So the transport decodes gzip, deflate
 * and br as the body arrives, and the gateway reads, caps and relays the decoded bytes: a small
 * compressed body that decodes to gigabytes is stopped at `server.maxResponseBytes` like any other.
 * Any other encoding fails a 2xx answer with a clear error.
 */
import type { Transform } from 'node:stream';
import { constants, createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** An answer too large for `server.maxResponseBytes`; transportError words it for the caller. */
export class AnswerTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`The answer is larger than ${limit} bytes.`);
  }
}

/** An answer in a content-encoding the gateway cannot decode, or one that does not decode. */
export class UnreadableEncoding extends Error {
  constructor(
    readonly encoding: string,
    readonly known: boolean,
    cause?: unknown,
  ) {
    super(known ? `The ${encoding} answer does not decode.` : `The answer's content-encoding '${encoding}' is not one the gateway reads.`, { cause });
  }
}

/** A content-encoding the gateway decodes, and how. */
export interface Decoding {
  readonly name: string;
  readonly make: () => Transform;
}

/**
 * How to decode an answer's `content-encoding`: undefined for none, UnreadableEncoding for one not
 * known. Lenient about a missing end, as browsers are: a body cut short is caught where it is read.
 */
export function decodingFor(encoding: string | string[] | undefined): Decoding | UnreadableEncoding | undefined {
  if (encoding === undefined) return undefined;
  const name = (Array.isArray(encoding) ? encoding.join(',') : encoding).trim().toLowerCase();
  switch (name) {
    case '':
    case 'identity':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return { name, make: () => createGunzip({ flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH }) };
    case 'deflate':
      return { name, make: () => createInflate({ flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH }) };
    case 'br':
      return {
        name,
        make: () => createBrotliDecompress({ flush: constants.BROTLI_OPERATION_FLUSH, finishFlush: constants.BROTLI_OPERATION_FLUSH }),
      };
    default:
      return new UnreadableEncoding(name, false);
  }
}

/** Where decoded bytes go: `data` answers false to pause the decoder until `AnswerDecoder.resume`. */
export interface DecodedSink {
  data(chunk: Buffer): boolean;
  end(): void;
  error(err: Error): void;
}

/**
 * Feeds an undici handler's raw chunks through a decoder to `sink`, with back-pressure both ways:
 * `write` answers false (undici stops reading) while the decoder is full, and `resumeUpstream`
 * restarts undici once it has room again.
 */
export class AnswerDecoder {
  private readonly zlib: Transform;
  private failed = false;

  constructor(decoding: Decoding, sink: DecodedSink, resumeUpstream: () => void) {
    const zlib = decoding.make();
    this.zlib = zlib;
    zlib.on('data', (chunk: Buffer) => {
      if (!sink.data(chunk)) zlib.pause();
    });
    zlib.once('end', () => sink.end());
    zlib.once('error', (err) => {
      this.failed = true;
      sink.error(new UnreadableEncoding(decoding.name, true, err));
    });
    zlib.on('drain', resumeUpstream);
  }

  write(chunk: Buffer): boolean {
    return this.failed ? true : this.zlib.write(chunk);
  }

  end(): void {
    if (!this.failed) this.zlib.end();
  }

  resume(): void {
    this.zlib.resume();
  }

  destroy(): void {
    this.failed = true;
    this.zlib.destroy();
  }
}

/** The answer's headers as the decoded body has them: no encoding, and no length (it was the encoded one). */
export function decodedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
  const { 'content-encoding': _encoding, 'content-length': _length, ...rest } = headers;
  return rest;
}
