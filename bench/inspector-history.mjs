#!/usr/bin/env node
/**
 * What the inspector's history costs per request, in-process and deterministic: small passthrough Chat
 * exchanges recorded through the pipeline's own events (pipeline/events.ts) as a whole answer records
 * them, and handed to the inspector's observer as the gateway hands them, with the collections they
 * cause included. Each request also leaves the short-lived garbage a request leaves in the gateway
 * (its body parsed, a line of facts serialised), so that young collections come about as often as
 * in the gateway and what history keeps has to survive them.
 *
 *   node --single-threaded bench/inspector-history.mjs [--mode history|capture|unwatched|none] [--requests N] [--warmup N] [--garbage N]
 *
 * `history`: every request captured and kept (`inspector.history: true`); `unwatched`: the inspector
 * with history off and no page open (nothing captured); `none`: no inspector (`--no-inspector`);
 * `capture`: every request captured as history captures it, and none kept (the capture's own part).
 * `--garbage N`: N parses of a 4 KB JSON text per request, the rest of a request's short-lived objects;
 * the default puts a young collection every few dozen requests, as a serving gateway has them, so that
 * what history keeps survives one or two of them before it is dropped, as it does there.
 * Prints CPU per request (µs, user + system, this thread only with `--single-threaded`) and the
 * collections' count and time by kind. Runs against dist/: `npm run build` first.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'history' },
    requests: { type: 'string', default: '300000' },
    warmup: { type: 'string', default: '50000' },
    garbage: { type: 'string', default: '1' },
  },
});
const mode = values.mode;
if (!['history', 'capture', 'unwatched', 'none'].includes(mode)) throw new Error(`--mode history|capture|unwatched|none, not ${mode}`);

const events = await import('../dist/pipeline/events.js');
const { createInspector } = await import('../dist/inspector/inspector.js');
const { DEFAULT_CAPTURE_LIMIT } = await import('../dist/server/gateway.js');

// `history` keeps every request whole, as it would keep them all with a page open: no `bodiesPerSecond` bound.
const inspector = mode === 'none' || mode === 'capture' ? undefined : createInspector({ history: mode === 'history', bodiesPerSecond: Number.POSITIVE_INFINITY });
const observer = inspector?.observer;
const captureLimit = inspector?.history || mode === 'capture' ? DEFAULT_CAPTURE_LIMIT : 0;
let n = 0;
const source = { newId: () => `req_0123456789ab${(++n).toString(36).padStart(6, '0')}`, captureLimit: () => captureLimit };

// Fresh strings per request, as node's parser and undici make them: sliced out of a buffer.
const wire = Buffer.from(
  'POST/v1/chat/completions127.0.0.1:8080application/jsonBearer mgw_0123456789abcdefOpenAI/JS 4.77.0keep-alive' +
    'application/jsonWed, 25 Nov 2026 10:00:00 GMTreq_abcdef0123456789',
);
const cut = (a, b) => wire.toString('latin1', a, b);
const clientHeaders = () => ({
  host: cut(24, 38),
  'content-type': cut(38, 54),
  authorization: cut(54, 81),
  'user-agent': cut(81, 98),
  connection: cut(98, 108),
  'content-length': '290',
});
const upstreamAnswerHeaders = () => ({
  'content-type': cut(108, 124),
  date: cut(124, 153),
  'x-request-id': cut(153, 171),
  'content-length': '420',
});

const body = Buffer.from(
  JSON.stringify({
    model: 'gpt-small',
    messages: [
      { role: 'system', content: 'You are a concise assistant that answers in one short paragraph.' },
      { role: 'user', content: 'Explain in two sentences why keep-alive connections make an HTTP proxy faster.' },
    ],
    max_tokens: 256,
    temperature: 0.2,
  }),
);
const answer = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1764064800,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Keep-alive reuses connections, so no handshake per request.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 31, completion_tokens: 12, total_tokens: 43 },
  }),
);
const noise = JSON.stringify(Array.from({ length: 60 }, (_, i) => ({ role: 'user', index: i, content: `part ${i} of the request` })));
const garbage = Number(values.garbage);
const key = { group: 'team', id: 'k_01234567', name: 'bench' };
const route = { name: 'gpt-small', target: { provider: { id: 'openai', type: 'openai' }, upstreamModel: 'gpt-4o-mini' }, plan: { upstreamProtocol: 'chat' } };
const price = { source: 'config', label: 'gpt-small', periods: [{ rates: { input: 0.15, output: 0.6 } }] };
const res = { headersSent: true, statusCode: 200, writableFinished: true };

function oneRequest() {
  const req = { method: 'POST', headers: clientHeaders() };
  const record = events.requestStarted(req, '/v1/chat/completions', source);
  observer?.requestStarted(record);
  events.protocolKnown(record, 'chat');
  events.operationKnown(record, 'create');
  events.keyIdentified(record, key);
  // The body as read (a copy of its own) and parsed: the gateway's young garbage.
  const raw = Buffer.from(body);
  events.bodyRead(record, raw);
  const json = JSON.parse(raw.toString('utf8'));
  events.bodyParsed(record, { model: json.model, stream: false });
  events.routeChosen(record, route, undefined);
  events.attemptStarted(record, route, { headers: { 'content-type': 'application/json', 'user-agent': req.headers['user-agent'] }, body: raw });
  events.attemptAnswered(record, { status: 200, headers: upstreamAnswerHeaders() });
  const got = Buffer.from(answer);
  events.upstreamChunk(record, got);
  events.answerHead(record, 200, { 'content-type': 'application/json', 'content-length': got.length });
  events.answerIsUpstream(record, got);
  const usage = JSON.parse(got.toString('utf8')).usage;
  events.usageRead(record, { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens });
  events.requestEnded(record, res, price);
  observer?.requestEnded(record);
  for (let i = 0; i < garbage; i++) sink += JSON.parse(noise).length;
  // The log file's line of facts.
  return JSON.stringify({ id: record.id, model: record.model, status: record.status, durationMs: record.durationMs, usage: record.usage }).length;
}

const gc = { minor: { count: 0, ms: 0 }, major: { count: 0, ms: 0 }, other: { count: 0, ms: 0 } };
/** The measured window, in performance.now() time: collections are counted by when they started. */
let from = Number.POSITIVE_INFINITY;
let to = Number.POSITIVE_INFINITY;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.startTime < from || e.startTime > to) continue;
    const kind = e.detail?.kind;
    const into = kind === constants.NODE_PERFORMANCE_GC_MINOR ? gc.minor : kind === constants.NODE_PERFORMANCE_GC_MAJOR ? gc.major : gc.other;
    into.count++;
    into.ms += e.duration;
  }
}).observe({ entryTypes: ['gc'] });

let sink = 0;
for (let i = 0; i < Number(values.warmup); i++) sink += oneRequest();
const requests = Number(values.requests);
from = performance.now();
const before = process.cpuUsage();
for (let i = 0; i < requests; i++) sink += oneRequest();
const used = process.cpuUsage(before);
to = performance.now();
// The observer's entries arrive on later turns.
await new Promise((resolve) => setTimeout(resolve, 200));

const perRequestUs = (used.user + used.system) / requests;
const round = (x) => Math.round(x * 1000) / 1000;
console.log(
  JSON.stringify({
    mode,
    requests,
    cpuPerRequestUs: round(perRequestUs),
    gc: Object.fromEntries(Object.entries(gc).map(([k, v]) => [k, { count: v.count, ms: round(v.ms), usPerRequest: round((v.ms * 1000) / requests) }])),
    held: inspector?.size ?? 0,
    rssMB: Math.round(process.memoryUsage().rss / 1e6),
    sink: sink > 0,
  }),
);
