import { describe, expect, it } from 'vitest';
import { dataOf, eventResponse } from './wire.js';

describe('dataOf', () => {
  it.each([
    ['a named event', 'event: response.created\ndata: {"a":1}', '{"a":1}'],
    ['data without the space', 'data:{"a":1}', '{"a":1}'],
    ['data on several lines, joined', 'data: {"a":\ndata: 1}', '{"a":\n1}'],
    ['a comment only', ': keep-alive', undefined],
    ['no data line', 'event: ping', undefined],
  ])('%s', (_name, event, expected) => expect(dataOf(event)).toBe(expected));
});

/** Writes `chunks` as the pipeline would and collects what the sink gets. */
async function through(status: number, type: string, chunks: string[]) {
  const sent: string[] = [];
  const answers: { status: number; body: string }[] = [];
  const res = eventResponse({
    send: (text, done) => {
      sent.push(text);
      setImmediate(done);
    },
    answer: (s, _headers, body) => answers.push({ status: s, body }),
  });
  res.writeHead(status, { 'content-type': type });
  for (const chunk of chunks) res.write(chunk);
  await new Promise<void>((resolve) => res.end(resolve));
  return { sent, answers };
}

describe('eventResponse', () => {
  it('sends each event of a stream as one message, whatever the chunks, and not [DONE]', async () => {
    const { sent, answers } = await through(200, 'text/event-stream; charset=utf-8', [
      'event: a\r\ndata: {"type":"a"}\r\n\r\nevent: b\r\nda',
      'ta: {"type":"b"}\r\n\r\n',
      'data: [DONE]\n\ndata: {"type":"c"}',
    ]);
    expect(sent).toEqual(['{"type":"a"}', '{"type":"b"}', '{"type":"c"}']);
    expect(answers).toEqual([]);
  });

  it('keeps an answer that is not a stream whole, with its status', async () => {
    const { sent, answers } = await through(401, 'application/json', ['{"error":', '{"message":"no"}}']);
    expect(sent).toEqual([]);
    expect(answers).toEqual([{ status: 401, body: '{"error":{"message":"no"}}' }]);
  });
});
