/**
 * A fake Vertex AI serving Claude, behaving as the real one does where the gateway can tell:
 * - the bearer token must be one the fake Google token endpoint issued and still valid, else 401
 *   in Google's error shape (`{error: {code, message, status: "UNAUTHENTICATED"}}`);
 * - the path must be `/v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:{method}`
 *   for its project and region, the method `rawPredict` or `streamRawPredict` (the model
 *   `count-tokens` counts), else 404 in Google's shape;
 * - the body is the Messages body in Vertex's envelope: `anthropic_version: "vertex-2023-10-16"`,
 *   no `model` (a count must name one), no field it does not know, betas it accepts; else 400 in
 *   Anthropic's shape, as the model's own refusals come.
 * Answers are Messages JSON and Anthropic SSE, a tool call when the request offers tools and the
 * last turn is not a tool result.
 *
 * Given a fake Gemini (`gemini`), it serves Google's publisher too, at
 * `.../publishers/google/models/{model}:{generateContent|streamGenerateContent|countTokens}`: the
 * Gemini body as the Gemini API takes it, answered by that fake Gemini (thought signatures checked),
 * except counts, which Vertex takes with the request's fields at the top level and refuses wrapped
 * in `generateContentRequest`.
 */
import type { ServerResponse } from 'node:http';
import { messageFrames, messageJson, sse } from './canned.js';
import { anthropicModelId, type ClaudeModel, ModelRefusal, messageSse } from './claude-tool-loop.js';
import type { ProviderContract } from '../contracts/provider.contract.js';
import { startFakeGoogleToken, TEST_PROJECT, type FakeGoogleToken } from './fake-google-token.js';
import type { FakeGemini } from './fake-gemini.js';
import { sendJson } from './fake-upstream.js';
import type { Behaviour, Received } from './received.js';

export const VERTEX_VERSION = 'vertex-2023-10-16';

/** The Messages fields Vertex takes for Claude. */
const KNOWN_FIELDS = new Set([
  'anthropic_version',
  'anthropic_beta',
  'messages',
  'system',
  'max_tokens',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'metadata',
  'context_management',
  'output_config',
]);

/** The betas this fake accepts, in the header or the body. */
const BETAS = new Set(['interleaved-thinking-2025-05-14', 'context-management-2025-06-27', 'context-1m-2025-08-07', 'tool-search-tool-2025-10-19']);

const google = (res: ServerResponse, code: number, status: string, message: string) => sendJson(res, code, { error: { code, message, status } });
const anthropicError = (res: ServerResponse, message: string) =>
  sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message }, request_id: 'req_vrtx_fake' });

const PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(anthropic|google)\/models\/([^/:]+):([A-Za-z]+)$/;

export interface FakeVertexOptions {
  readonly project: string;
  readonly region: string;
  /** The model that answers (whole and streamed) instead of the canned answers; its refusals are Anthropic's 400. */
  readonly model?: ClaudeModel;
  /** Google's publisher, answered by this fake Gemini (made with `VERTEX_GEMINI_KEY`); absent: Google's models are not found. */
  readonly gemini?: FakeGemini;
}

/** The key the fake Gemini behind Google's publisher is made with: the fake Vertex calls it with this, having checked the token. */
export const VERTEX_GEMINI_KEY = 'vertex-internal-gemini-key';

export function fakeVertex(tokens: Pick<FakeGoogleToken, 'check'>, { project, region, model: claude, gemini }: FakeVertexOptions): Behaviour {
  return (req: Received, res: ServerResponse) => {
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const state = bearer === undefined ? 'unknown' : tokens.check(bearer);
    if (state !== 'valid') {
      const why = state === 'expired' ? 'Request had expired authentication credentials.' : 'Request had invalid authentication credentials.';
      google(res, 401, 'UNAUTHENTICATED', `${why} Expected OAuth 2 access token, login cookie or other valid authentication credential.`);
      return;
    }
    const url = new URL(req.url, 'http://fake-vertex');
    const match = PATH.exec(url.pathname);
    if (req.method !== 'POST' || !match || match[1] !== project || match[2] !== region) {
      google(res, 404, 'NOT_FOUND', `The requested URL ${req.url} was not found on this server.`);
      return;
    }
    const publisher = match[3]!;
    const model = match[4]!;
    const method = match[5]!;
    if (publisher === 'google') {
      if (gemini === undefined) google(res, 404, 'NOT_FOUND', `Publisher Model \`${url.pathname}\` was not found or your project does not have access to it.`);
      else return googleModel(gemini, req, res, { model, method, search: url.search });
      return;
    }
    if (url.search !== '') {
      google(res, 400, 'INVALID_ARGUMENT', `Unexpected query parameters: ${url.search}`);
      return;
    }
    const counting = model === 'count-tokens';
    if (!['rawPredict', 'streamRawPredict'].includes(method) || (counting && method !== 'rawPredict')) {
      google(res, 404, 'NOT_FOUND', `Method ${method} is not found.`);
      return;
    }
    const body = req.json as Record<string, unknown> | undefined;
    if (typeof body !== 'object' || body === null) {
      anthropicError(res, 'The request body is not valid JSON.');
      return;
    }
    const problem = bodyProblem(body, counting, String(req.headers['anthropic-beta'] ?? ''));
    if (problem !== undefined) {
      anthropicError(res, problem);
      return;
    }
    if (counting) {
      sendJson(res, 200, { input_tokens: 42 });
      return;
    }
    const answerModel = model.split('@')[0]!;
    if (claude !== undefined) {
      let message: Record<string, unknown>;
      try {
        message = claude(body, anthropicModelId(model));
      } catch (err) {
        if (!(err instanceof ModelRefusal)) throw err;
        anthropicError(res, err.message);
        return;
      }
      if (method === 'streamRawPredict') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'x-vertex-ai-llm-request-type': 'shared' });
        res.end(messageSse(message));
      } else sendJson(res, 200, message);
      return;
    }
    const toolName = toolToCall(body);
    if (method === 'streamRawPredict') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-vertex-ai-llm-request-type': 'shared' });
      res.end((toolName === undefined ? messageFrames(answerModel) : toolFrames(answerModel, toolName)).join(''));
      return;
    }
    sendJson(res, 200, toolName === undefined ? messageJson(answerModel) : toolJson(answerModel, toolName));
  };
}

/** A call to Google's publisher, passed to the fake Gemini as the Gemini API would get it (the token was checked). */
function googleModel(gemini: FakeGemini, req: Received, res: ServerResponse, call: { model: string; method: string; search: string }) {
  let json = req.json as Record<string, unknown> | undefined;
  if (call.method === 'countTokens' && typeof json === 'object' && json !== null) {
    const unknown = Object.keys(json).find((name) => !VERTEX_COUNT_FIELDS.has(name));
    if (unknown !== undefined) {
      google(res, 400, 'INVALID_ARGUMENT', `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
      return;
    }
    json = { generateContentRequest: { ...json, model: `models/${call.model}` } };
  }
  const { authorization: _token, ...headers } = req.headers;
  return gemini.behaviour({ ...req, url: `/v1beta/models/${call.model}:${call.method}${call.search}`, headers: { ...headers, 'x-goog-api-key': VERTEX_GEMINI_KEY }, json }, res);
}

/** The fields of Vertex's `CountTokensRequest` (each also in snake_case). */
const VERTEX_COUNT_FIELDS = new Set(
  ['model', 'instances', 'contents', 'systemInstruction', 'tools', 'generationConfig'].flatMap((f) => [f, f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)]),
);

function bodyProblem(body: Record<string, unknown>, counting: boolean, betaHeader: string): string | undefined {
  if (body.anthropic_version !== VERTEX_VERSION) return `anthropic_version: Input should be '${VERTEX_VERSION}'`;
  if (counting ? typeof body.model !== 'string' : 'model' in body) return counting ? 'model: Field required' : 'model: Extra inputs are not permitted';
  for (const field of Object.keys(body)) {
    if (field !== 'model' && !KNOWN_FIELDS.has(field)) return `${field}: Extra inputs are not permitted`;
  }
  const betas = [...betaHeader.split(','), ...(Array.isArray(body.anthropic_beta) ? body.anthropic_beta : [])]
    .map((b) => String(b).trim())
    .filter((b) => b !== '');
  const unexpected = betas.filter((b) => !BETAS.has(b));
  if (unexpected.length > 0) return `Unexpected value(s) \`${unexpected.join('`, `')}\` for the \`anthropic-beta\` header.`;
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: Field required';
  return undefined;
}

/** The first tool's name when the request offers tools and its last turn is not a tool result. */
function toolToCall(body: Record<string, unknown>): string | undefined {
  const tools = Array.isArray(body.tools) ? (body.tools as { name?: unknown }[]) : [];
  const name = tools[0]?.name;
  if (typeof name !== 'string') return undefined;
  const last = (body.messages as { content?: unknown }[]).at(-1);
  const answered = Array.isArray(last?.content) && (last.content as { type?: unknown }[]).some((b) => b.type === 'tool_result');
  return answered ? undefined : name;
}

export const TOOL_INPUT = { city: 'Paris' };

function toolJson(model: string, name: string) {
  return {
    ...messageJson(model),
    content: [{ type: 'tool_use', id: 'toolu_vrtx_01', name, input: TOOL_INPUT }],
    stop_reason: 'tool_use',
  };
}

function toolFrames(model: string, name: string): string[] {
  const start = { ...messageJson(model), content: [], stop_reason: null };
  const ev = (type: string, data: Record<string, unknown>) => sse({ type, ...data }, type);
  return [
    ev('message_start', { message: start }),
    ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_vrtx_01', name, input: {} } }),
    ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(TOOL_INPUT) } }),
    ev('content_block_stop', { index: 0 }),
    ev('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }),
    ev('message_stop', {}),
  ];
}

/** The Messages body as the pipeline would send it to Vertex: the contract calls the provider with the vendor's own body. */
function enveloped(behaviour: Behaviour): Behaviour {
  return (req, res) => {
    const { model: _model, ...rest } = (req.json ?? {}) as Record<string, unknown>;
    return behaviour({ ...req, json: { ...rest, anthropic_version: VERTEX_VERSION } }, res);
  };
}

/** The token every contract call is given, echoed by the contract's error answers to show it is cut out. */
export const CONTRACT_TOKEN = 'ya29.contract-token-0123456789abcdef';

/**
 * The provider contract's entry for `vertex`: a service account whose token endpoint is a fake
 * Google one of its own (the contract's fake answers only the Vertex calls, and is made to fail).
 */
export async function startVertexContract(): Promise<{ readonly contract: ProviderContract; close(): Promise<void> }> {
  const tokens = await startFakeGoogleToken();
  tokens.nextToken = () => CONTRACT_TOKEN;
  return {
    contract: {
      entry: (origin) => ({ type: 'vertex', region: 'us-east5', credentialsFile: tokens.credentialsFile, baseUrl: origin }),
      upstream: enveloped(fakeVertex(tokens, { project: TEST_PROJECT, region: 'us-east5' })),
      protocol: 'messages',
      // The path differs between a whole and a streamed answer (rawPredict, streamRawPredict); test/e2e/vertex.test.ts checks both.
      secret: CONTRACT_TOKEN,
    },
    close: () => tokens.close(),
  };
}
