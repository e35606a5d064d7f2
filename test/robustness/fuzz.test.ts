/**
 * Issue 6, property tests. (a) Arbitrary and near-valid bodies through the real
 * server to the echo provider, natively and through every translation: never a
 * 5xx (echo cannot fail, so a 5xx is a gateway bug), errors always JSON in the
 * caller's shape, successes complete, and the server keeps serving. (b) The SSE
 * decoder: any split of a stream decodes as one push does; any bytes are safe.
 * (c) The translators' stream side on arbitrary upstream event sequences.
 */
import fc from 'fast-check';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSseDecoder, type SseEvent } from '#src/sse/parse.js';
import { translatorFor } from '#src/translate/registry.js';
import { PROTOCOLS, type Protocol } from '#src/protocols/types.js';
import { translateContext } from '../helpers/translate-context.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { ECHO_MODELS, ENDPOINTS, errorShapeProblem, GEMINI_ENDPOINTS, robustConfig, type EndpointCase } from './helpers.js';

/** `FUZZ_SCALE=20 npx vitest run test/robustness/fuzz.test.ts` runs twenty times as many cases, to hunt. */
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const runs = (n: number) => Math.round(n * SCALE);

let gw: TestGateway;
const agent = new Agent({ connections: 4, keepAliveTimeout: 30_000 });

beforeAll(async () => {
  // No fake upstream: every model here is served by echo (the config's other providers are never called).
  gw = await startGateway(robustConfig('http://127.0.0.1:9'));
});
afterAll(async () => {
  await agent.close();
  await gw.close();
});

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** Every endpoint the fuzz sends to: Gemini's name the model and whether it streams in the path. */
const ALL_ENDPOINTS: readonly EndpointCase[] = [...ENDPOINTS, ...GEMINI_ENDPOINTS];

/** Where a request for `model` goes, streamed or not. */
const pathOf = (ep: EndpointCase, model: string, stream: boolean) => ep.pathFor?.(model, stream) ?? ep.path;

async function post(path: string, ep: EndpointCase, body: string): Promise<Answer> {
  const res = await request(`${gw.url}${path}`, { method: 'POST', headers: ep.headers(), body, dispatcher: agent });
  return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), text: await res.body.text() };
}

/** The stream's proper end per protocol (Gemini's: a last chunk with the finish reason), and what an in-band error looks like. */
const STREAM_END: Record<Protocol, RegExp> = {
  chat: /data: \[DONE\]\n\n$/,
  responses: /event: response\.completed\n/,
  messages: /event: message_stop\n/,
  gemini: /^data: \{.*"finishReason":"[A-Z_]+".*\}\n\n$(?![\s\S])/m,
};
const STREAM_ERROR = /^event: error$|^data: \{"error"|"type":"response\.failed"/m;

/** Why `answer` breaks the contract for a request the client built, or undefined. */
function problem(ep: EndpointCase, stream: boolean, a: Answer): string | undefined {
  if (a.status >= 500) return `status ${a.status}`;
  if (a.status >= 400) {
    if (!a.contentType.startsWith('application/json')) return `error content-type ${a.contentType}`;
    let json: unknown;
    try {
      json = JSON.parse(a.text);
    } catch {
      return 'error body is not JSON';
    }
    return errorShapeProblem(ep.family, json);
  }
  if (a.status !== 200) return `status ${a.status}`;
  if (stream && ep.operation === 'create') {
    if (!a.contentType.startsWith('text/event-stream')) return `stream content-type ${a.contentType}`;
    if (STREAM_ERROR.test(a.text)) return 'an error frame in the stream';
    if (!STREAM_END[ep.protocol]!.test(a.text)) return 'the stream did not end properly';
    return undefined;
  }
  if (!a.contentType.startsWith('application/json')) return `content-type ${a.contentType}`;
  try {
    const json = JSON.parse(a.text) as Record<string, unknown>;
    if (json.error !== undefined && json.error !== null) return 'a 200 carrying an error';
    const counted = ep.protocol === 'gemini' ? 'totalTokens' : 'input_tokens';
    if (ep.operation === 'count_tokens' && typeof json[counted] !== 'number') return `count_tokens without ${counted}`;
  } catch {
    return 'the body is not JSON';
  }
  return undefined;
}

/** Sends `body` for `model` (Gemini's path names it; the others' bodies do) and checks the answer. */
async function check(ep: EndpointCase, model: string, body: string, stream: boolean): Promise<void> {
  const path = pathOf(ep, model, stream);
  const answer = await post(path, ep, body);
  const why = problem(ep, stream, answer);
  if (why) throw new Error(`${path}: ${why}\nrequest: ${body.slice(0, 1500)}\nanswer ${answer.status}: ${answer.text.slice(0, 1500)}`);
}

// ---------------------------------------------------------------------------------------------------------------------
// (a) bodies

const endpoint = fc.constantFrom(...ALL_ENDPOINTS);
const model = fc.constantFrom(...ECHO_MODELS);

/** Values a field is unlikely to expect: every JSON type, edge numbers, odd strings, small nested values. */
const weird = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER, '', ' ', '\u0000', '\ud83d\ude00', 'null', '[]', [], {}, [null], [{}], [[]]),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.array(fc.record({ type: fc.constantFrom('text', 'image', 'image_url', 'input_text', 'input_image', 'tool_use', 'tool_result', 'function_call', 'function_call_output', 'thinking', 'reasoning', 'refusal', 'document', 'file', 'input_file', 'output_text', 'x') }, { requiredKeys: [] }), { maxLength: 3 }),
);

const tool = {
  chat: { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
  responses: { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  messages: { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
  gemini: { functionDeclarations: [{ name: 'get_weather', description: 'Weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }] },
};

/** A Gemini `GenerateContentRequest`: the model and the stream are the path's. */
const geminiRequest = {
  systemInstruction: { parts: [{ text: 'Be brief.' }] },
  contents: [
    { role: 'user', parts: [{ text: 'weather?' }] },
    { role: 'model', parts: [{ functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' }] },
    { role: 'user', parts: [{ functionResponse: { id: 'call_1', name: 'get_weather', response: { output: 'sunny' } } }, { text: 'thanks' }] },
  ],
  tools: [tool.gemini],
  toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
  generationConfig: { temperature: 0.5, maxOutputTokens: 256 },
};

/** A rich valid body per endpoint: system prompt, a finished tool round, a last user turn, tools. */
function richBody(ep: EndpointCase, m: string, stream: boolean): Record<string, unknown> {
  const s = ep.operation === 'create' ? { stream } : {};
  switch (ep.protocol) {
    case 'chat':
      return {
        model: m,
        ...s,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
          { role: 'user', content: 'thanks' },
        ],
        tools: [tool.chat],
        temperature: 0.5,
      };
    case 'responses':
      return {
        model: m,
        ...s,
        instructions: 'Be brief.',
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'weather?' }] },
          { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
          { role: 'user', content: 'thanks' },
        ],
        tools: [tool.responses],
        store: false,
      };
    case 'messages':
      return {
        model: m,
        ...s,
        ...(ep.operation === 'create' ? { max_tokens: 256 } : {}),
        system: 'Be brief.',
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }, { type: 'text', text: 'thanks' }] },
        ],
        tools: [tool.messages],
      };
    case 'gemini':
      // A count wraps the request it counts, as the SDK sends it when the request has more than contents.
      return ep.operation === 'create' ? structuredClone(geminiRequest) : { generateContentRequest: { model: `models/${m}`, ...structuredClone(geminiRequest) } };
  }
}

/** Optional top-level fields the decoders read (from src/protocols/{chat,responses,messages,gemini}/codec/decode-request.ts). */
const TOP_FIELDS = {
  chat: ['tools', 'tool_choice', 'functions', 'function_call', 'stream_options', 'response_format', 'stop', 'n', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'top_k', 'reasoning_effort', 'metadata', 'user', 'seed', 'logit_bias', 'logprobs', 'top_logprobs', 'parallel_tool_calls', 'modalities', 'audio', 'prediction', 'presence_penalty', 'frequency_penalty', 'verbosity', 'web_search_options', 'safety_identifier'],
  responses: ['tools', 'tool_choice', 'instructions', 'max_output_tokens', 'max_tool_calls', 'metadata', 'parallel_tool_calls', 'prompt', 'reasoning', 'safety_identifier', 'temperature', 'text', 'top_logprobs', 'top_p', 'user', 'include', 'store', 'previous_response_id', 'truncation', 'conversation'],
  messages: ['tools', 'tool_choice', 'system', 'max_tokens', 'metadata', 'output_config', 'stop_sequences', 'temperature', 'thinking', 'top_k', 'top_p', 'service_tier', 'container'],
  gemini: ['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'safetySettings', 'cachedContent', 'generateContentRequest'],
} as const;

/** Field names inside messages, items, parts and tools worth corrupting. */
const INNER_FIELDS = ['role', 'content', 'type', 'text', 'name', 'arguments', 'tool_calls', 'tool_call_id', 'function', 'id', 'call_id', 'output', 'input', 'tool_use_id', 'source', 'image_url', 'cache_control', 'is_error', 'parameters', 'input_schema', 'description', 'summary', 'encrypted_content', 'thinking', 'signature', 'data', 'refusal', 'status', 'file_data', 'parts', 'functionCall', 'functionResponse', 'args', 'response', 'thought', 'thoughtSignature', 'inlineData', 'fileData', 'mimeType', 'functionDeclarations', 'parametersJsonSchema', 'thinkingConfig', 'functionCallingConfig', 'mode'];

type Path = (string | number)[];

/** Every path to an object member in `value` (objects and arrays walked). */
function paths(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  if (Array.isArray(value)) for (const [i, v] of value.entries()) paths(v, [...at, i], out);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      out.push([...at, k]);
      paths(v, [...at, k], out);
    }
    // A field that is not there yet, on this object.
    out.push([...at, '\u0000new']);
  }
  return out;
}

function setAt(root: Record<string, unknown>, path: Path, key: string | undefined, value: unknown): void {
  let node: unknown = root;
  for (const p of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[p];
  const last = path[path.length - 1]!;
  const target = node as Record<string | number, unknown>;
  const name = last === '\u0000new' ? key! : last;
  if (value === undefined) delete target[name];
  // A copy: constant values are shared between runs, and later mutations may write into this one.
  else target[name] = structuredClone(value);
}

/** A mutation: where (an index into the body's paths), a field name for new members, and the value (undefined deletes). */
const mutation = fc.record({
  where: fc.nat(),
  key: fc.constantFrom(...INNER_FIELDS),
  top: fc.option(fc.nat(), { nil: undefined, freq: 2 }),
  value: fc.option(weird, { nil: undefined, freq: 6 }),
});

const nearValid = fc.record({
  ep: endpoint,
  model,
  stream: fc.boolean(),
  mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
});

interface NearValid {
  ep: EndpointCase;
  model: string;
  stream: boolean;
  mutations: { where: number; key: string; top: number | undefined; value: unknown }[];
}

function mutate({ ep, model: m, stream, mutations }: NearValid): Record<string, unknown> {
  const body = richBody(ep, m, stream);
  for (const mu of mutations) {
    if (mu.top !== undefined) {
      // A top-level field the decoders read, set to the odd value.
      const fields = TOP_FIELDS[ep.protocol];
      setAt(body, [fields[mu.top % fields.length]!], undefined, mu.value);
      continue;
    }
    // Keep `model` (routing is not under test here): mutate anything else.
    const all = paths(body).filter((p) => !(p.length === 1 && p[0] === 'model'));
    setAt(body, all[mu.where % all.length]!, mu.key, mu.value);
  }
  return body;
}

describe('(a) the gateway on arbitrary and near-valid bodies', () => {
  it('arbitrary JSON values as the body: a 4xx in the caller shape, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(endpoint, fc.jsonValue({ maxDepth: 4 }), async (ep, value) => {
        await check(ep, 'echo', JSON.stringify(value) ?? 'null', false);
      }),
      { numRuns: runs(250) },
    );
  });

  it('arbitrary objects with a routable model: never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(endpoint, model, fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }), async (ep, m, extra) => {
        await check(ep, m, JSON.stringify({ ...extra, model: m }), extra.stream === true);
      }),
      { numRuns: runs(250) },
    );
  });

  it('every rich valid body succeeds, natively and translated', async () => {
    for (const ep of ALL_ENDPOINTS) {
      for (const m of ECHO_MODELS) {
        for (const stream of ep.operation === 'create' ? [false, true] : [false]) {
          const answer = await post(pathOf(ep, m, stream), ep, JSON.stringify(richBody(ep, m, stream)));
          expect(answer.status, `${ep.name} ${m} stream=${stream}: ${answer.text.slice(0, 500)}`).toBe(200);
          expect(problem(ep, stream, answer)).toBeUndefined();
        }
      }
    }
  });

  it('near-valid bodies (valid ones with 1–3 fields corrupted): never a 5xx, errors in the caller shape, streams complete', async () => {
    await fc.assert(
      fc.asyncProperty(nearValid, async (input) => {
        const body = mutate(input);
        // Gemini streams by its path; the others by the body's `stream`, which a mutation may have changed.
        await check(input.ep, input.model, JSON.stringify(body), input.ep.pathFor ? input.stream : body.stream === true);
      }),
      { numRuns: runs(500) },
    );
  });

  it('still serves an ordinary request afterwards', async () => {
    const answer = await post(ENDPOINTS[0]!.path, ENDPOINTS[0]!, JSON.stringify(ENDPOINTS[0]!.body('echo', 'after the fuzz')));
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('after the fuzz');
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// (b) the SSE decoder

/** A string without CR or LF, as lone surrogates would not survive UTF-8 (they become U+FFFD). */
const lineText = fc.string({ unit: 'binary', maxLength: 30 }).map((s) => Buffer.from(s.replace(/[\r\n]/g, ''), 'utf8').toString('utf8'));
const sseEvent = fc.record({
  event: fc.option(lineText.filter((s) => s !== '' && !s.includes(':')), { nil: undefined }),
  lines: fc.array(lineText, { minLength: 1, maxLength: 4 }),
  comment: fc.boolean(),
  id: fc.boolean(),
});
const newline = fc.constantFrom('\n', '\r', '\r\n');

/** Encodes events with random line ends; returns the bytes and the events a correct decoder yields. */
const sseStream = fc.record({ events: fc.array(sseEvent, { maxLength: 8 }), ends: fc.array(newline, { minLength: 1, maxLength: 5 }) }).map(({ events, ends }) => {
  let n = 0;
  let text = '';
  // A CR line end followed by an LF one would read as one CRLF: write that pair as CR, CRLF.
  const nl = () => {
    const end = ends[n++ % ends.length]!;
    return end === '\n' && text.endsWith('\r') ? '\r\n' : end;
  };
  const expected: SseEvent[] = [];
  for (const e of events) {
    if (e.comment) text += `: comment${nl()}`;
    if (e.event !== undefined) text += `event: ${e.event}${nl()}`;
    if (e.id) text += `id: 42${nl()}`;
    for (const l of e.lines) text += `data: ${l}${nl()}`;
    text += nl();
    expected.push({ event: e.event, data: e.lines.join('\n') });
  }
  return { bytes: Buffer.from(text, 'utf8'), expected };
});

/** Cut points in a buffer of `length` bytes. */
const cuts = (length: number) => fc.uniqueArray(fc.integer({ min: 0, max: Math.max(0, length) }), { maxLength: 12 }).map((c) => c.sort((a, b) => a - b));

function decodeInPieces(bytes: Buffer, at: number[]): SseEvent[] {
  const decoder = createSseDecoder();
  const out: SseEvent[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    out.push(...decoder.push(bytes.subarray(from, c)));
    from = c;
  }
  out.push(...decoder.end());
  return out;
}

describe('(b) the SSE decoder', () => {
  it('decodes a stream into the events it encodes, with any line ends', () => {
    fc.assert(
      fc.property(sseStream, ({ bytes, expected }) => {
        expect(decodeInPieces(bytes, [])).toEqual(expected);
      }),
      { numRuns: runs(500) },
    );
  });

  it('any byte split of a stream gives the same events as one push (CRLF and UTF-8 split across chunks)', () => {
    fc.assert(
      fc.property(sseStream.chain((s) => fc.tuple(fc.constant(s), cuts(s.bytes.length))), ([{ bytes, expected }, at]) => {
        expect(decodeInPieces(bytes, at)).toEqual(expected);
      }),
      { numRuns: runs(500) },
    );
  });

  it('arbitrary bytes never throw, and splits never change the result', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }).chain((b) => fc.tuple(fc.constant(Buffer.from(b)), cuts(b.length))), ([bytes, at]) => {
        const whole = decodeInPieces(bytes, []);
        expect(decodeInPieces(bytes, at)).toEqual(whole);
        for (const e of whole) expect(typeof e.data).toBe('string');
      }),
      { numRuns: runs(500) },
    );
  });

  it('SSE-ish text (field names, colons, line ends, BOMs) never throws and splits never change the result', () => {
    const token = fc.constantFrom('data', 'event', 'id', 'retry', ':', ': ', ' ', 'x', '\n', '\r', '\r\n', '\ufeff', '{"a":1}', '[DONE]', 'é', '🎉');
    fc.assert(
      fc.property(fc.array(token, { maxLength: 60 }).map((t) => Buffer.from(t.join(''))).chain((b) => fc.tuple(fc.constant(b), cuts(b.length))), ([bytes, at]) => {
        expect(decodeInPieces(bytes, at)).toEqual(decodeInPieces(bytes, []));
      }),
      { numRuns: runs(500) },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// (c) the translators' stream side

/** Event names each upstream protocol sends, plus some it does not. */
const UPSTREAM_EVENTS = {
  chat: [undefined],
  responses: ['response.created', 'response.in_progress', 'response.output_item.added', 'response.output_item.done', 'response.content_part.added', 'response.content_part.done', 'response.output_text.delta', 'response.output_text.done', 'response.refusal.delta', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.custom_tool_call_input.delta', 'response.reasoning_summary_part.added', 'response.reasoning_summary_text.delta', 'response.reasoning_text.delta', 'response.completed', 'response.incomplete', 'response.failed', 'error', 'keepalive'],
  messages: ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'ping', 'error'],
  // Gemini's events are unnamed: what each holds is in its data (the payload's Gemini fields below).
  gemini: [undefined],
} as const satisfies Record<Protocol, readonly (string | undefined)[]>;

const payload = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record(
    {
      index: fc.oneof(fc.nat(3), weird),
      output_index: fc.oneof(fc.nat(3), weird),
      content_index: fc.oneof(fc.nat(2), weird),
      item: fc.oneof(fc.record({ type: fc.constantFrom('message', 'function_call', 'reasoning', 'custom_tool_call', 'web_search_call', 'x'), id: fc.string(), call_id: fc.string(), name: weird, arguments: weird, content: weird }, { requiredKeys: ['type'] }), weird),
      part: weird,
      delta: fc.oneof(fc.string(), fc.record({ type: fc.constantFrom('text_delta', 'input_json_delta', 'thinking_delta', 'signature_delta', 'citations_delta', 'x'), text: weird, partial_json: weird, thinking: weird }, { requiredKeys: ['type'] }), weird),
      content_block: fc.oneof(fc.record({ type: fc.constantFrom('text', 'tool_use', 'thinking', 'redacted_thinking', 'server_tool_use', 'x'), id: weird, name: weird, input: weird, text: weird }, { requiredKeys: ['type'] }), weird),
      choices: fc.array(fc.record({ index: fc.oneof(fc.nat(2), weird), delta: fc.record({ role: weird, content: weird, tool_calls: fc.oneof(fc.array(fc.record({ index: fc.oneof(fc.nat(2), weird), id: weird, function: fc.record({ name: weird, arguments: weird }, { requiredKeys: [] }) }, { requiredKeys: [] }), { maxLength: 2 }), weird), reasoning_content: weird, refusal: weird }, { requiredKeys: [] }), finish_reason: fc.oneof(fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter', null), weird) }, { requiredKeys: [] }), { maxLength: 2 }),
      message: weird,
      response: weird,
      usage: weird,
      candidates: fc.oneof(
        fc.array(
          fc.record(
            {
              index: fc.oneof(fc.nat(2), weird),
              content: fc.oneof(
                fc.record(
                  {
                    role: fc.oneof(fc.constant('model'), weird),
                    parts: fc.oneof(
                      fc.array(
                        fc.record(
                          {
                            text: weird,
                            thought: fc.oneof(fc.boolean(), weird),
                            thoughtSignature: fc.oneof(fc.base64String({ maxLength: 12 }), weird),
                            functionCall: fc.oneof(fc.record({ id: weird, name: weird, args: weird }, { requiredKeys: [] }), weird),
                          },
                          { requiredKeys: [] },
                        ),
                        { maxLength: 3 },
                      ),
                      weird,
                    ),
                  },
                  { requiredKeys: [] },
                ),
                weird,
              ),
              finishReason: fc.oneof(fc.constantFrom('STOP', 'MAX_TOKENS', 'SAFETY', 'MALFORMED_FUNCTION_CALL', 'FINISH_REASON_UNSPECIFIED'), weird),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 2 },
        ),
        weird,
      ),
      usageMetadata: fc.oneof(fc.record({ promptTokenCount: weird, candidatesTokenCount: weird, thoughtsTokenCount: weird, cachedContentTokenCount: weird }, { requiredKeys: [] }), weird),
      promptFeedback: fc.oneof(fc.record({ blockReason: fc.oneof(fc.constantFrom('SAFETY', 'OTHER'), weird) }, { requiredKeys: [] }), weird),
      error: fc.oneof(fc.record({ code: weird, message: weird, status: weird }, { requiredKeys: [] }), weird),
    },
    { requiredKeys: [] },
  ),
);

describe('(c) the translators on arbitrary upstream event sequences', () => {
  const pairs = PROTOCOLS.flatMap((caller) => PROTOCOLS.filter((u) => u !== caller).map((upstream) => ({ caller, upstream, name: `${caller}->${upstream}` })));

  it.each(pairs)('$name: push, end and fail never throw', ({ caller, upstream }) => {
    const translator = translatorFor(caller, upstream)!;
    const events = UPSTREAM_EVENTS[upstream] as readonly (string | undefined)[];
    const sseEvents = fc.array(
      fc.record({ name: fc.constantFrom(...events), type: fc.boolean(), data: payload, raw: fc.option(fc.constantFrom('[DONE]', '', 'not json', '{'), { nil: undefined, freq: 8 }) }).map(({ name, type, data, raw }): SseEvent => {
        const withType = type && typeof data === 'object' && data !== null && !Array.isArray(data) ? { type: name, ...data } : data;
        return { event: name, data: raw ?? JSON.stringify(withType) };
      }),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(sseEvents, fc.boolean(), (list, failAtEnd) => {
        const ctx = translateContext({ caller, upstream, requestedModel: 'm', upstreamModel: 'm-up', upstreamDialect: upstream === 'messages' ? 'anthropic' : upstream === 'gemini' ? 'compatible' : 'openai' });
        const stream = translator.stream(ctx, { model: 'm', stream: true, stream_options: { include_usage: true } });
        let out = '';
        for (const e of list) out += stream.push(e);
        out += failAtEnd ? stream.fail('upstream broke off') : stream.end();
        expect(typeof out).toBe('string');
      }),
      { numRuns: runs(300) },
    );
  });
});
