#!/usr/bin/env node
/**
 * The fake upstream: a lean node:http server answering OpenAI Chat Completions
 * and Anthropic Messages (and count_tokens), streaming or not, and Amazon Bedrock's
 * InvokeModel and InvokeModelWithResponseStream for Claude.
 *
 * Behaviour is chosen by a path prefix, so one process serves every variant and
 * a provider's baseUrl selects it:
 *   /u/<delayMs>/<gapMs>/v1/chat/completions   (also /v1/messages, /v1/messages/count_tokens,
 *   /model/<id>/invoke and /model/<id>/invoke-with-response-stream)
 * delayMs: wait before the response headers (time to first token);
 * gapMs: pause between SSE chunks. Without the prefix: delay 0, gap 2.
 * A body containing `"stream":true` gets 50 SSE content chunks, then the protocol's end.
 * Bedrock says "stream" in its path instead: the same Messages events, each an event-stream
 * `chunk` message whose JSON `bytes` is the event's base64, written in the same groups as the
 * SSE stream's, so a bedrock provider's stream and an anthropic one's carry the same events.
 * Neither checks a credential or a signature.
 * Responses are precomputed buffers and deterministic, so the upstream costs as
 * little as possible and every target receives the same bytes.
 *
 * Usage: node bench/upstream.mjs [--port 0]   → prints {"url": "..."} on stdout when listening.
 */
import { createServer } from 'node:http';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { ANSWER_TEXT, STREAM_CHUNKS, UPSTREAM_MODEL_NAME, chunkText } from './lib/shapes.mjs';

const args = process.argv.slice(2);
const portArg = args.indexOf('--port');
const port = portArg >= 0 ? Number(args[portArg + 1]) : 0;

const CREATED = 1_700_000_000;
const json = (o) => Buffer.from(JSON.stringify(o));

// ---- OpenAI Chat Completions -------------------------------------------------------------------
const chatCompletion = json({
  id: 'chatcmpl-bench0000000000000000000000',
  object: 'chat.completion',
  created: CREATED,
  model: UPSTREAM_MODEL_NAME,
  choices: [{ index: 0, message: { role: 'assistant', content: ANSWER_TEXT, refusal: null }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 42, completion_tokens: 180, total_tokens: 222 },
  system_fingerprint: 'fp_bench',
});
const chatChunk = (delta, finish, extra = {}) =>
  Buffer.from(
    `data: ${JSON.stringify({
      id: 'chatcmpl-bench0000000000000000000000',
      object: 'chat.completion.chunk',
      created: CREATED,
      model: UPSTREAM_MODEL_NAME,
      system_fingerprint: 'fp_bench',
      choices: delta === undefined ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...extra,
    })}\n\n`,
  );
const chatStream = {
  first: chatChunk({ role: 'assistant', content: '', refusal: null }, null),
  chunks: Array.from({ length: STREAM_CHUNKS }, (_, i) => chatChunk({ content: chunkText(i) }, null)),
  finish: chatChunk({}, 'stop'),
  usage: chatChunk(undefined, null, { usage: { prompt_tokens: 42, completion_tokens: STREAM_CHUNKS, total_tokens: 42 + STREAM_CHUNKS } }),
  done: Buffer.from('data: [DONE]\n\n'),
};
chatStream.tail = Buffer.concat([chatStream.finish, chatStream.done]);
chatStream.tailWithUsage = Buffer.concat([chatStream.finish, chatStream.usage, chatStream.done]);

// ---- Anthropic Messages -------------------------------------------------------------------------
const message = json({
  id: 'msg_bench000000000000000000',
  type: 'message',
  role: 'assistant',
  model: UPSTREAM_MODEL_NAME,
  content: [{ type: 'text', text: ANSWER_TEXT }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 42, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 180 },
});
const sse = ({ type, ...rest }) => Buffer.from(`event: ${type}\ndata: ${JSON.stringify({ type, ...rest })}\n\n`);
/** The Messages stream's events, in the groups the upstream writes them: first, one per chunk, end. */
const messagesEvents = {
  first: [
    {
      type: 'message_start',
      message: {
        id: 'msg_bench000000000000000000',
        type: 'message',
        role: 'assistant',
        model: UPSTREAM_MODEL_NAME,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 42, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
      },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ],
  chunks: Array.from({ length: STREAM_CHUNKS }, (_, i) => [
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: chunkText(i) } },
  ]),
  end: [
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: STREAM_CHUNKS } },
    { type: 'message_stop' },
  ],
};
/** Each group of events as one buffer, in an encoding. */
const encoded = (encode) => ({
  first: Buffer.concat(messagesEvents.first.map(encode)),
  chunks: messagesEvents.chunks.map((group) => Buffer.concat(group.map(encode))),
  end: Buffer.concat(messagesEvents.end.map(encode)),
});
const messagesStream = encoded(sse);

// ---- Amazon Bedrock (InvokeModelWithResponseStream) ---------------------------------------------
// AWS's own codec, as the SDKs and the test suite's fake Bedrock use it; every frame is encoded once, here.
const codec = new EventStreamCodec(toUtf8, fromUtf8);
const str = (value) => ({ type: 'string', value });
const CHUNK_HEADERS = { ':message-type': str('event'), ':event-type': str('chunk'), ':content-type': str('application/json') };
const chunkFrame = (event) =>
  Buffer.from(codec.encode({ headers: CHUNK_HEADERS, body: Buffer.from(JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString('base64') })) }));
const bedrockStream = encoded(chunkFrame);

const JSON_HEADERS = { 'content-type': 'application/json', 'x-request-id': 'req_bench_upstream' };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': 'req_bench_upstream' };
const BEDROCK_JSON_HEADERS = { 'content-type': 'application/json', 'x-amzn-requestid': 'req_bench_upstream' };
const EVENT_STREAM_HEADERS = { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'req_bench_upstream' };
const notFound = json({ error: { message: 'not found', type: 'invalid_request_error' } });

const STREAM_TRUE = Buffer.from('"stream":true');
const STREAM_TRUE_SPACED = Buffer.from('"stream": true');
const INCLUDE_USAGE = Buffer.from('"include_usage":true');
const PREFIX = /^\/u\/(\d+)\/(\d+)(\/.*)$/;
const BEDROCK_INVOKE = /^\/model\/[^/]+\/invoke$/;
const BEDROCK_STREAM = /^\/model\/[^/]+\/invoke-with-response-stream$/;

function answer(req, res, raw) {
  let path = req.url ?? '/';
  const q = path.indexOf('?');
  if (q >= 0) path = path.slice(0, q);
  let delay = 0;
  let gap = 2;
  const m = PREFIX.exec(path);
  if (m) {
    delay = Number(m[1]);
    gap = Number(m[2]);
    path = m[3];
  }
  const stream = raw.includes(STREAM_TRUE) || raw.includes(STREAM_TRUE_SPACED);
  let respond;
  if (path === '/v1/chat/completions') {
    respond = stream ? () => streamChat(res, gap, raw.includes(INCLUDE_USAGE)) : () => send(res, 200, JSON_HEADERS, chatCompletion);
  } else if (path === '/v1/messages') {
    respond = stream ? () => streamMessages(res, gap) : () => send(res, 200, JSON_HEADERS, message);
  } else if (path === '/v1/messages/count_tokens') {
    respond = () => send(res, 200, JSON_HEADERS, json({ input_tokens: Math.ceil(raw.length / 4) }));
  } else if (BEDROCK_STREAM.test(path)) {
    respond = () => paced(res, EVENT_STREAM_HEADERS, bedrockStream.first, bedrockStream.chunks, bedrockStream.end, gap);
  } else if (BEDROCK_INVOKE.test(path)) {
    respond = () => send(res, 200, BEDROCK_JSON_HEADERS, message);
  } else {
    respond = () => send(res, 404, JSON_HEADERS, notFound);
  }
  if (delay > 0) setTimeout(respond, delay);
  else respond();
}

function send(res, status, headers, body) {
  if (res.destroyed) return;
  res.writeHead(status, { ...headers, 'content-length': body.length });
  res.end(body);
}

/** Writes `first`, then each chunk `gap` ms apart, then `tail`; stops if the client goes away. */
function paced(res, headers, first, chunks, tail, gapMs) {
  if (res.destroyed) return;
  res.writeHead(200, headers);
  res.write(first);
  let i = 0;
  let timer;
  const next = () => {
    if (res.destroyed) return;
    if (i < chunks.length) {
      res.write(chunks[i++]);
      timer = setTimeout(next, gapMs);
    } else {
      res.end(tail);
    }
  };
  res.once('close', () => clearTimeout(timer));
  timer = setTimeout(next, gapMs);
}

function streamChat(res, gap, includeUsage) {
  const tail = includeUsage
    ? chatStream.tailWithUsage
    : chatStream.tail;
  paced(res, SSE_HEADERS, chatStream.first, chatStream.chunks, tail, gap);
}

function streamMessages(res, gap) {
  paced(res, SSE_HEADERS, messagesStream.first, messagesStream.chunks, messagesStream.end, gap);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => answer(req, res, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.requestTimeout = 0;
server.maxConnections = 4096;
server.listen(port, '127.0.0.1', () => {
  const { port: p } = server.address();
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${p}` })}\n`);
});
const stop = () => {
  server.close();
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 200).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
