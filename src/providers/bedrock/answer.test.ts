/**
 * Bedrock's answers as the gateway reads them: event-stream messages cut anywhere across chunks
 * become Anthropic's server-sent events; exception frames before the first chunk an HTTP error
 * answer, after it an Anthropic error event; an oversized or broken message fails the call;
 * CountTokens' count and error bodies in Anthropic's shapes.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { chunkFrame, chunkFrameOf, exceptionFrame, streamEvents } from '../../../test/helpers/fake-bedrock.js';
import type { UrlCall } from '../http.js';
import type { UpstreamResponse } from '../types.js';
import { bedrockAnswer } from './answer.js';
import { FrameReader, FrameTooLarge, MAX_FRAME_BYTES, UnreadableAnswer } from './event-stream.js';

const STREAM: UrlCall = { protocol: 'messages', operation: 'create', model: 'm', stream: true };
const EVENTS = streamEvents({ id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'x' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } });

function eventStream(frames: readonly Uint8Array[], cut: number): UpstreamResponse {
  const all = Buffer.concat(frames);
  const chunks: Buffer[] = [];
  for (let at = 0; at < all.length; at += cut) chunks.push(all.subarray(at, at + cut));
  return { status: 200, headers: { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'r1' }, body: Readable.from(chunks) };
}

async function text(body: Readable): Promise<string> {
  let out = '';
  for await (const chunk of body) out += Buffer.from(chunk).toString('utf8');
  return out;
}

const sse = (events: readonly Record<string, unknown>[]) => events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');

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
    expect(() => new FrameReader().push(prelude)).toThrow(FrameTooLarge);
  });

  it.each([
    ['a checksum that does not match', (f: Buffer) => Buffer.concat([f.subarray(0, f.length - 1), Buffer.from([f[f.length - 1]! ^ 1])])],
    ['a stream cut inside a message', (f: Buffer) => f.subarray(0, f.length - 3)],
  ])('%s fails the call as an unreadable answer', async (_name, spoil) => {
    const frame = spoil(Buffer.from(chunkFrame(EVENTS[0])));
    await expect(bedrockAnswer(eventStream([frame], 10), STREAM)).rejects.toBeInstanceOf(UnreadableAnswer);
  });

  it('an event written over several lines is relayed on one data line', async () => {
    const frames = [chunkFrameOf(JSON.stringify(EVENTS[0], null, 2)), ...EVENTS.slice(1).map(chunkFrame)];
    const answer = await bedrockAnswer(eventStream(frames, 64), STREAM);
    expect(await text(answer.body)).toBe(sse(EVENTS));
  });

  it.each([
    ['a type with a line break', '{"type":"ping\\nevent: message_stop"}'],
    ['a type that is not a name', '{"type":"message start"}'],
    ['no type', '{"index":0}'],
  ])('an event with %s fails the call rather than reaching the caller', async (_name, json) => {
    await expect(bedrockAnswer(eventStream([chunkFrameOf(json)], 64), STREAM)).rejects.toBeInstanceOf(UnreadableAnswer);
  });

  it('a break after the first chunk errors the body the gateway relays', async () => {
    const frames = [chunkFrame(EVENTS[0]), Buffer.from(chunkFrame(EVENTS[1])).subarray(0, 20)];
    const answer = await bedrockAnswer(eventStream(frames, 50), STREAM);
    await expect(text(answer.body)).rejects.toBeInstanceOf(UnreadableAnswer);
  });

  it('destroying the relayed body before reading it closes the upstream body', async () => {
    const upstream = eventStream(EVENTS.map(chunkFrame), 1000);
    const answer = await bedrockAnswer(upstream, STREAM);
    answer.body.destroy();
    await new Promise((r) => setImmediate(r));
    expect(upstream.body.destroyed).toBe(true);
  });

  it('an upstream body closed before its first message (the call cancelled) fails the answer rather than leaving it waiting', async () => {
    const body = new Readable({ read() {} });
    const pending = bedrockAnswer({ status: 200, headers: { 'content-type': 'application/vnd.amazon.eventstream' }, body }, STREAM);
    setImmediate(() => body.destroy());
    await expect(pending).rejects.toBeInstanceOf(UnreadableAnswer);
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
