/**
 * Bedrock's answers as the gateway reads them: event-stream messages cut anywhere across chunks
 * become Anthropic's server-sent events; exception frames before the first chunk an HTTP error
 * answer, after it an Anthropic error event; an oversized or broken message fails the call;
 * CountTokens' count and error bodies in Anthropic's shapes.
 */
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { chunkFrame, chunkFrameOf, exceptionFrame, streamEvents } from '../../../test/helpers/fake-bedrock.js';
import type { UrlCall } from '../http.js';
import type { UpstreamResponse } from '../types.js';
import { bedrockAnswer, bedrockStreamBody } from './answer.js';
import { FrameReader, FrameTooLarge, MAX_FRAME_BYTES, UnreadableAnswer } from './event-stream.js';

const STREAM: UrlCall = { protocol: 'messages', operation: 'create', model: 'm', stream: true };
const EVENTS = streamEvents({ id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'x' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } });

const EVENT_STREAM_HEADERS = { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'r1' };

/** The upstream call behind a body, as the test sees it: whether it was asked to resume and why it was aborted. */
function upstreamCall() {
  const call = {
    resumed: 0,
    aborted: undefined as Error | undefined,
    resume() {
      call.resumed++;
    },
    abort(reason: Error) {
      call.aborted = reason;
    },
  };
  return call;
}

/**
 * An answer as the provider hands it to `bedrockAnswer`: its body made by the kind's `streamBody`
 * and fed as undici feeds it, the first chunk with the headers (before `bedrockAnswer` runs), then
 * one chunk per turn of the event loop, then the end.
 */
function fed(chunks: readonly Buffer[], call = upstreamCall()): UpstreamResponse {
  const body = bedrockStreamBody(STREAM, 200, EVENT_STREAM_HEADERS, call)!;
  const feedFrom = (i: number) => {
    if (body.destroyed) return;
    if (i === chunks.length) return body.finish();
    body.feed(chunks[i]!);
    setImmediate(() => feedFrom(i + 1));
  };
  feedFrom(0);
  return { status: 200, headers: EVENT_STREAM_HEADERS, body };
}

function eventStream(frames: readonly Uint8Array[], cut: number): UpstreamResponse {
  const all = Buffer.concat(frames);
  const chunks: Buffer[] = [];
  for (let at = 0; at < all.length; at += cut) chunks.push(all.subarray(at, at + cut));
  return fed(chunks);
}

async function text(body: Readable): Promise<string> {
  let out = '';
  for await (const chunk of body) out += Buffer.from(chunk).toString('utf8');
  return out;
}

const sse = (events: readonly Record<string, unknown>[]) => events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');

const streamOf = (chunks: readonly Buffer[]): UpstreamResponse => fed(chunks.filter((c) => c.length > 0));

/** A frame's two checksums written again over its bytes as they now are: a message that lies in its framing, not in transit. */
function resealed(frame: Buffer): Buffer {
  const out = Buffer.from(frame);
  out.writeUInt32BE(crc32(out.subarray(0, 8)), 8);
  out.writeUInt32BE(crc32(out.subarray(0, out.length - 4)), out.length - 4);
  return out;
}

/** One string header as event-stream writes it; `claimed` overrides the value's length. */
function stringHeaderBytes(name: string, value: string, claimed = Buffer.byteLength(value)): Buffer {
  const nameBytes = Buffer.from(name);
  const head = Buffer.alloc(1 + nameBytes.length + 3);
  head.writeUInt8(nameBytes.length, 0);
  nameBytes.copy(head, 1);
  head.writeUInt8(7, 1 + nameBytes.length);
  head.writeUInt16BE(claimed, 2 + nameBytes.length);
  return Buffer.concat([head, Buffer.from(value)]);
}

/** A message built byte by byte from header blocks and a body, its checksums right. */
function rawFrame(headers: readonly Buffer[], body: string): Buffer {
  const block = Buffer.concat(headers);
  const bodyBytes = Buffer.from(body);
  const frame = Buffer.alloc(16 + block.length + bodyBytes.length);
  frame.writeUInt32BE(frame.length, 0);
  frame.writeUInt32BE(block.length, 4);
  block.copy(frame, 12);
  bodyBytes.copy(frame, 12 + block.length);
  return resealed(frame);
}

const chunk0 = () => Buffer.from(chunkFrame(EVENTS[2]));
const flipped = (frame: Buffer, at: number): Buffer => {
  const out = Buffer.from(frame);
  out[at]! ^= 0x40;
  return out;
};

/** Messages that must not be read, each as the bytes of one message (or what claims to be one). */
const HOSTILE: [string, () => Buffer][] = [
  ['a prelude checksum that does not match', () => flipped(chunk0(), 9)],
  ['a body byte changed in transit', () => flipped(chunk0(), chunk0().length - 20)],
  ['a message checksum that does not match', () => flipped(chunk0(), chunk0().length - 1)],
  ['a total length shorter than the message', () => {
    const f = chunk0();
    f.writeUInt32BE(f.length - 8, 0);
    return resealed(f);
  }],
  ['a total length longer than the message', () => {
    const f = chunk0();
    f.writeUInt32BE(f.length + 8, 0);
    return resealed(f);
  }],
  ['a total length below the framing itself', () => {
    const f = chunk0();
    f.writeUInt32BE(15, 0);
    return f;
  }],
  ['a headers length past the end of the message', () => {
    const f = chunk0();
    f.writeUInt32BE(f.length, 4);
    return resealed(f);
  }],
  ['a huge headers length', () => {
    const f = chunk0();
    f.writeUInt32BE(0xffffffff, 4);
    return resealed(f);
  }],
  ['a header value longer than the header block', () => rawFrame([stringHeaderBytes(':message-type', 'event'), stringHeaderBytes(':event-type', 'chunk', 0xffff)], '{"bytes":"e30="}')],
  ['a header name longer than the header block', () => {
    const header = stringHeaderBytes(':message-type', 'event');
    header.writeUInt8(0xff, 0);
    return rawFrame([header], '{"bytes":"e30="}');
  }],
  ['a header type that event-stream does not have', () => {
    const header = stringHeaderBytes(':message-type', 'event');
    header.writeUInt8(42, 1 + ':message-type'.length);
    return rawFrame([header], '{"bytes":"e30="}');
  }],
  ['a chunk whose bytes are not an event', () => rawFrame([stringHeaderBytes(':message-type', 'event'), stringHeaderBytes(':event-type', 'chunk')], '{"bytes":"bm90IGpzb24="}')],
  ['a chunk without its bytes', () => rawFrame([stringHeaderBytes(':message-type', 'event'), stringHeaderBytes(':event-type', 'chunk')], '{"p":"abc"}')],
];

describe('bedrock stream answers', () => {
  it.each([1, 7, 64, 1_000_000])('decode into the same events whatever the chunks (cut every %i bytes)', async (cut) => {
    const answer = await bedrockAnswer(eventStream(EVENTS.map(chunkFrame), cut), STREAM);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream');
    expect(await text(answer.body)).toBe(sse(EVENTS));
  });

  it.each([
    ['throttlingException', 429, 'rate_limit_error'],
    ['serviceUnavailableException', 503, 'overloaded_error'],
    ['internalServerException', 500, 'api_error'],
    ['modelStreamErrorException', 500, 'api_error'],
    ['validationException', 400, 'invalid_request_error'],
  ])('an exception before the first chunk (%s) is an HTTP %i error answer', async (type, status, anthropicType) => {
    const answer = await bedrockAnswer(eventStream([exceptionFrame(type, 'Too many requests, please wait.')], 5), STREAM);
    expect(answer.status).toBe(status);
    expect(answer.headers['x-amzn-errortype']).toBe(type.charAt(0).toUpperCase() + type.slice(1));
    expect(JSON.parse(await text(answer.body))).toEqual({ type: 'error', error: { type: anthropicType, message: 'Too many requests, please wait.' } });
  });

  it('an exception after a chunk ends the stream with an Anthropic error event', async () => {
    const frames = [chunkFrame(EVENTS[0]), chunkFrame(EVENTS[1]), exceptionFrame('modelStreamErrorException', 'The model broke off.'), chunkFrame(EVENTS[2])];
    const answer = await bedrockAnswer(eventStream(frames, 13), STREAM);
    expect(answer.status).toBe(200);
    const error = { type: 'error', error: { type: 'api_error', message: 'The model broke off.' } };
    expect(await text(answer.body)).toBe(`${sse([EVENTS[0]!, EVENTS[1]!])}event: error\ndata: ${JSON.stringify(error)}\n\n`);
  });

  it('a message claiming more than the limit fails the call before reading it', async () => {
    const prelude = Buffer.alloc(12);
    prelude.writeUInt32BE(MAX_FRAME_BYTES + 1, 0);
    await expect(bedrockAnswer(eventStream([prelude], 12), STREAM)).rejects.toBeInstanceOf(FrameTooLarge);
    const reader = new FrameReader();
    reader.add(prelude);
    expect(() => reader.next()).toThrow(FrameTooLarge);
  });

  it.each([
    ['a checksum that does not match', (f: Buffer) => Buffer.concat([f.subarray(0, f.length - 1), Buffer.from([f[f.length - 1]! ^ 1])])],
    ['a stream cut inside a message', (f: Buffer) => f.subarray(0, f.length - 3)],
  ])('%s fails the call as an unreadable answer', async (_name, spoil) => {
    const frame = spoil(Buffer.from(chunkFrame(EVENTS[0])));
    await expect(bedrockAnswer(eventStream([frame], 10), STREAM)).rejects.toBeInstanceOf(UnreadableAnswer);
  });

  it.each(HOSTILE)('%s fails the call or its body, however the bytes are cut', async (_name, spoil) => {
    const frames = [Buffer.from(chunkFrame(EVENTS[0])), spoil(), Buffer.from(chunkFrame(EVENTS[1]))];
    const all = Buffer.concat(frames);
    // Two chunks, cut at every offset: the first message, the spoiled one and the one after it.
    for (let at = 0; at <= all.length; at++) {
      const answer = bedrockAnswer(streamOf([all.subarray(0, at), all.subarray(at)]), STREAM);
      const outcome = await answer.then((a) => text(a.body)).catch((err: unknown) => err);
      expect(outcome, `cut at ${at}`).toBeInstanceOf(UnreadableAnswer);
    }
  });

  it('a broken message in the same upstream chunk as the first event fails the call: its error would reach no reader of the body', async () => {
    const chunk = Buffer.concat([Buffer.from(chunkFrame(EVENTS[0])), Buffer.from(chunkFrame(EVENTS[1])), flipped(chunk0(), 9)]);
    await expect(bedrockAnswer(streamOf([chunk]), STREAM)).rejects.toBeInstanceOf(UnreadableAnswer);
  });

  it('a header whose value runs past the header block is refused, its bytes never read into a name', async () => {
    const frame = rawFrame([stringHeaderBytes(':message-type', 'exception'), stringHeaderBytes(':exception-type', 'throttlingException', 400)], '{"message":"secret body text"}');
    const err = await bedrockAnswer(streamOf([frame]), STREAM).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreadableAnswer);
    expect(String(err)).not.toContain('secret');
  });

  it('a header block that is not the last one, right after a chunk, is parsed again', async () => {
    const exception = Buffer.from(exceptionFrame('throttlingException', 'Slow down.'));
    const answer = await bedrockAnswer(streamOf([Buffer.concat([Buffer.from(chunkFrame(EVENTS[0])), exception])]), STREAM);
    const error = { type: 'error', error: { type: 'rate_limit_error', message: 'Slow down.' } };
    expect(await text(answer.body)).toBe(`${sse([EVENTS[0]!])}event: error\ndata: ${JSON.stringify(error)}\n\n`);
  });

  it('an event written over several lines is relayed on one data line', async () => {
    const frames = [chunkFrameOf(JSON.stringify(EVENTS[0], null, 2)), ...EVENTS.slice(1).map(chunkFrame)];
    const answer = await bedrockAnswer(eventStream(frames, 64), STREAM);
    expect(await text(answer.body)).toBe(sse(EVENTS));
  });

  /** A chunk whose `bytes` value is written as given, and the event Node's own base64 decoder reads from it. */
  const chunkWithBytes = (value: string): Buffer => rawFrame([stringHeaderBytes(':message-type', 'event'), stringHeaderBytes(':event-type', 'chunk')], `{"bytes":"${value}"}`);
  const ping = (text: string) => ({ type: 'ping', text });
  const b64 = (event: unknown) => Buffer.from(JSON.stringify(event)).toString('base64');

  it.each([
    ['no padding', b64(ping('abc'))],
    ['one padding byte', b64(ping('ab'))],
    ['two padding bytes', b64(ping('a'))],
    ['the URL alphabet', b64(ping('>>>???~~~')).replaceAll('+', '-').replaceAll('/', '_')],
    ['no padding where some was due', b64(ping('a')).replace(/=+$/, '')],
    ['a value larger than the decoder\'s scratch buffer', b64(ping('x'.repeat(100_000)))],
    ['an escaped slash', b64(ping('???>>>')).replaceAll('/', '\\/')],
    ['padding in the middle, where Node stops', `${b64(ping('a'))}${b64(ping('a'))}`],
  ])('a chunk whose bytes have %s is read as Node reads base64', async (_name, value) => {
    const unescaped = value.replaceAll('\\/', '/');
    const event = JSON.parse(Buffer.from(unescaped, 'base64').toString('utf8')) as Record<string, unknown>;
    const answer = await bedrockAnswer(eventStream([chunkWithBytes(value), chunkFrame(EVENTS[0])], 64), STREAM);
    expect(await text(answer.body)).toBe(sse([event, EVENTS[0]!]));
  });

  it('events of every length modulo three, one after another, each decoded whole (no byte of one in the next)', async () => {
    const events = Array.from({ length: 12 }, (_, i) => ping('é'.repeat(i)));
    const answer = await bedrockAnswer(eventStream(events.map(chunkFrame), 1_000_000), STREAM);
    expect(await text(answer.body)).toBe(sse(events));
  });

  it.each([
    ['a byte outside base64 inside the value', `${b64(ping('abc')).slice(0, 8)}*${b64(ping('abc')).slice(9)}`],
    ['a value that is not base64 at all', 'not base64!'],
  ])('a chunk with %s fails the call rather than reaching the caller as something else', async (_name, value) => {
    await expect(bedrockAnswer(eventStream([chunkWithBytes(value)], 64), STREAM)).rejects.toBeInstanceOf(UnreadableAnswer);
  });

  it.each([
    ['a type with a line break', '{"type":"ping\\nevent: message_stop"}'],
    ['a type that is not a name', '{"type":"message start"}'],
    ['no type', '{"index":0}'],
  ])('an event with %s fails the call rather than reaching the caller', async (_name, json) => {
    await expect(bedrockAnswer(eventStream([chunkFrameOf(json)], 64), STREAM)).rejects.toBeInstanceOf(UnreadableAnswer);
  });

  it.each([
    ['a stream cut inside a message', Buffer.from(chunkFrame(EVENTS[1])).subarray(0, 20)],
    ['a message whose checksum does not match', flipped(Buffer.from(chunkFrame(EVENTS[1])), 30)],
  ])('%s, arriving after the first event was handed on, errors the body the gateway relays', async (_name, broken) => {
    const body = bedrockStreamBody(STREAM, 200, EVENT_STREAM_HEADERS, upstreamCall())!;
    body.feed(Buffer.from(chunkFrame(EVENTS[0])));
    const answer = await bedrockAnswer({ status: 200, headers: EVENT_STREAM_HEADERS, body }, STREAM);
    const read = text(answer.body);
    setImmediate(() => {
      body.feed(broken);
      body.finish();
    });
    await expect(read).rejects.toBeInstanceOf(UnreadableAnswer);
  });

  it('destroying the relayed body before reading it aborts the upstream call', async () => {
    const call = upstreamCall();
    const answer = await bedrockAnswer(fed(EVENTS.map((e) => Buffer.from(chunkFrame(e))), call), STREAM);
    answer.body.destroy();
    expect(call.aborted).toBeInstanceOf(Error);
  });

  it('an exception before the first chunk ends the upstream call, its error answer made whole', async () => {
    const call = upstreamCall();
    const answer = await bedrockAnswer(fed([Buffer.from(exceptionFrame('throttlingException', 'Slow down.'))], call), STREAM);
    expect(answer.status).toBe(429);
    expect(call.aborted).toBeInstanceOf(Error);
  });

  it('a call that fails before its first message (cancelled, a socket gone) fails the answer rather than leaving it waiting', async () => {
    const body = bedrockStreamBody(STREAM, 200, EVENT_STREAM_HEADERS, upstreamCall())!;
    const pending = bedrockAnswer({ status: 200, headers: EVENT_STREAM_HEADERS, body }, STREAM);
    setImmediate(() => body.destroy(new Error('the socket closed')));
    await expect(pending).rejects.toThrow('the socket closed');
  });

  it('chunks that came before the codec was loaded, more than the body holds, are decoded once it is, and the upstream resumed', async () => {
    const call = upstreamCall();
    const body = bedrockStreamBody(STREAM, 200, EVENT_STREAM_HEADERS, call)!;
    const frames = EVENTS.map((e) => Buffer.from(chunkFrame(e)));
    let asked = true;
    // Fed as undici feeds a body that answers false: it stops, here only after the whole stream.
    for (let i = 0; i < 400; i++) asked = body.feed(frames[i % frames.length]!) && asked;
    expect(asked).toBe(false);
    const answer = await bedrockAnswer({ status: 200, headers: EVENT_STREAM_HEADERS, body }, STREAM);
    expect(call.resumed).toBeGreaterThan(0);
    body.finish();
    const out = await text(answer.body);
    expect(out.startsWith(sse(EVENTS))).toBe(true);
    expect(out.length).toBe(sse(Array.from({ length: 400 }, (_, i) => EVENTS[i % EVENTS.length]!)).length);
  });

  it('a stream that ended before the codec was loaded is still read to its end', async () => {
    const body = bedrockStreamBody(STREAM, 200, EVENT_STREAM_HEADERS, upstreamCall())!;
    for (const e of EVENTS) body.feed(Buffer.from(chunkFrame(e)));
    body.finish();
    const answer = await bedrockAnswer({ status: 200, headers: EVENT_STREAM_HEADERS, body }, STREAM);
    expect(await text(answer.body)).toBe(sse(EVENTS));
  });

  it('only a streamed Messages call answered with event-stream gets the decoding body', () => {
    const call = upstreamCall();
    expect(bedrockStreamBody(STREAM, 200, { 'content-type': 'application/json' }, call)).toBeUndefined();
    expect(bedrockStreamBody(STREAM, 400, EVENT_STREAM_HEADERS, call)).toBeUndefined();
    expect(bedrockStreamBody({ ...STREAM, operation: 'count_tokens' }, 200, EVENT_STREAM_HEADERS, call)).toBeUndefined();
    expect(bedrockStreamBody({ ...STREAM, protocol: 'chat' }, 200, EVENT_STREAM_HEADERS, call)).toBeUndefined();
  });
});

describe('bedrock whole answers', () => {
  const whole = (status: number, body: unknown, headers: Record<string, string> = {}): UpstreamResponse => {
    const buf = Buffer.from(JSON.stringify(body));
    return { status, headers: { 'content-type': 'application/json', ...headers }, body: Readable.from([buf]), whole: buf };
  };

  it("CountTokens' inputTokens becomes Anthropic's input_tokens", async () => {
    const answer = await bedrockAnswer(whole(200, { inputTokens: 123 }), { protocol: 'messages', operation: 'count_tokens', model: 'm', stream: false });
    expect(JSON.parse(answer.whole!.toString())).toEqual({ input_tokens: 123 });
    expect(answer.headers['content-length']).toBe(String(answer.whole!.length));
  });

  it("an error's message comes in Anthropic's error body, its AWS type kept in the header", async () => {
    const answer = await bedrockAnswer(
      whole(400, { message: 'messages: field required' }, { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/' }),
      { ...STREAM, stream: false },
    );
    expect(answer.status).toBe(400);
    expect(answer.headers['x-amzn-errortype']).toBe('ValidationException:http://internal.amazon.com/');
    expect(JSON.parse(answer.whole!.toString())).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'messages: field required' } });
  });

  it('Chat answers pass as they are', async () => {
    const upstream = whole(429, { error: { message: 'slow down' } });
    expect(await bedrockAnswer(upstream, { protocol: 'chat', operation: 'create', model: 'm', stream: false })).toBe(upstream);
  });
});
