/**
 * A fake Amazon Bedrock Runtime that refuses what the real one refuses, in its error shape
 * (`x-amzn-errortype` and a `{message}` body):
 * - a SigV4 signature is checked with an implementation of its own (the `aws4` package): the
 *   signature is computed again over the request as received, with the secret of the access key
 *   it names, and must match; a Bedrock API key must come as `Authorization: Bearer`;
 * - the InvokeModel body must be Bedrock's: `anthropic_version` "bedrock-2023-05-31", no `model`,
 *   no `stream`, no field Bedrock's schema lacks, only betas Bedrock knows;
 * - streams are AWS event-stream messages (encoded with the same codec AWS's SDKs use), each
 *   chunk's `bytes` the base64 of one Anthropic stream event; exception frames can be injected.
 * It answers InvokeModel, InvokeModelWithResponseStream, CountTokens and the OpenAI-compatible
 * Chat Completions endpoint.
 */
import type { ServerResponse } from 'node:http';
import { EventStreamCodec, type Message } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import aws4 from 'aws4';
import { CANNED_TEXT, cannedReply } from './canned.js';
import { anthropicModelId, type ClaudeModel, ModelRefusal, messageEvents } from './claude-tool-loop.js';
import { sendJson } from './fake-upstream.js';
import type { Behaviour, Received } from './received.js';

export interface AwsCredentialSet {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  /** When the key stops being accepted (temporary credentials); never when absent. */
  readonly expiration?: Date;
}

export const BEDROCK_REGION = 'us-west-2';
export const BEDROCK_API_KEY = 'bedrock-api-key-ABSKfake0123456789';
export const AWS_CREDENTIALS: AwsCredentialSet = {
  accessKeyId: 'AKIAFAKEBEDROCK0001',
  secretAccessKey: 'fake/secret+access/key0123456789abcdefXYZ',
};
export const AWS_SESSION_CREDENTIALS: AwsCredentialSet = {
  accessKeyId: 'ASIAFAKEBEDROCK0002',
  secretAccessKey: 'fake/session+secret/key9876543210zyxwvuABC',
  sessionToken: 'FwoGZXIvYXdzEFAKEsessiontoken0123456789',
};
/** What CountTokens answers for any body it accepts. */
export const FAKE_INPUT_TOKENS = 37;

/** An exception frame, as InvokeModelWithResponseStream sends it. */
export interface InjectedException {
  readonly type: string;
  readonly message: string;
  /** How many chunks go before it: 0 sends it before any. */
  readonly afterChunks: number;
}

export interface FakeBedrockOptions {
  readonly region?: string;
  /** Access keys whose signatures are accepted. */
  readonly credentials?: readonly AwsCredentialSet[];
  /** A Bedrock API key accepted as a bearer token. */
  readonly apiKey?: string;
  /** The next streams' exception frame. */
  readonly exception?: InjectedException;
  /** The next streams' message after this many chunks, changed by `spoil` (a checksum broken, a length that lies). */
  readonly spoiled?: { readonly afterChunks: number; readonly spoil: (frame: Buffer) => Buffer };
  /**
   * Accepts an InvokeModel body as Anthropic's API takes it (`model`, `stream`, no version): for the
   * provider contract, which sends bodies as prepared, before the pipeline's envelope.
   */
  readonly anthropicBodies?: boolean;
  /** The model that answers InvokeModel (whole and streamed) instead of the canned answer; its refusals are ValidationExceptions. */
  readonly model?: ClaudeModel;
  /** Answers every signed call with this AWS error (a throttled or unavailable service) instead of invoking the model. */
  readonly refuse?: { readonly status: number; readonly type: string; readonly message: string };
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

// The betas Bedrock's InvokeModel takes (its documentation's list), independent of the gateway's table.
const KNOWN_BETAS = new Set([
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'computer-use-2025-11-24',
  'token-efficient-tools-2025-02-19',
  'interleaved-thinking-2025-05-14',
  'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14',
  'fine-grained-tool-streaming-2025-05-14',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
  'effort-2025-11-24',
  'tool-search-tool-2025-10-19',
  'tool-examples-2025-10-29',
  'compact-2026-01-12',
]);

// The fields of the Anthropic Claude body Bedrock's InvokeModel takes; any other is "extraneous".
const BODY_FIELDS = new Set([
  'anthropic_version',
  'anthropic_beta',
  'max_tokens',
  'messages',
  'system',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'stop_sequences',
  'thinking',
  'output_config',
  'context_management',
]);

/** Bedrock's error answer: the type in `x-amzn-errortype`, the message in the body. */
export function sendAwsError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { message }, { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, 'x-amzn-requestid': 'fake-request-id' });
}

class Refusal {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly message: string,
  ) {}
}

const validation = (message: string) => new Refusal(400, 'ValidationException', message);

export function fakeBedrock(options: FakeBedrockOptions = {}): Behaviour {
  const region = options.region ?? BEDROCK_REGION;
  return (req: Received, res: ServerResponse) => {
    try {
      authenticate(req, region, options);
      route(req, res, options);
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      sendAwsError(res, err.status, err.type, err.message);
    }
  };
}

const BAD_TOKEN = 'The security token included in the request is invalid.';

function authenticate(req: Received, region: string, options: FakeBedrockOptions): void {
  const authorization = req.headers.authorization;
  if (authorization === undefined) throw new Refusal(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  if (authorization.startsWith('Bearer ')) {
    if (options.apiKey === undefined || authorization !== `Bearer ${options.apiKey}`) throw new Refusal(403, 'UnrecognizedClientException', BAD_TOKEN);
    return;
  }
  const parsed = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!parsed) throw new Refusal(403, 'IncompleteSignatureException', 'Authorization header requires Credential, SignedHeaders and Signature.');
  const [, keyId, , scopeRegion, service, signedHeaders, signature] = parsed as unknown as string[];
  const credential = options.credentials?.find((c) => c.accessKeyId === keyId);
  if (credential === undefined) throw new Refusal(403, 'UnrecognizedClientException', BAD_TOKEN);
  if (credential.sessionToken !== undefined && req.headers['x-amz-security-token'] !== credential.sessionToken) {
    throw new Refusal(403, 'UnrecognizedClientException', BAD_TOKEN);
  }
  if (credential.expiration !== undefined && credential.expiration.getTime() <= Date.now()) {
    throw new Refusal(403, 'ExpiredTokenException', 'The security token included in the request is expired');
  }
  if (scopeRegion !== region || service !== 'bedrock') {
    throw new Refusal(403, 'InvalidSignatureException', `Credential should be scoped to a valid region and the bedrock service, not '${scopeRegion}/${service}'.`);
  }
  const amzDate = req.headers['x-amz-date'];
  if (typeof amzDate !== 'string' || !signedHeaders!.split(';').includes('x-amz-date') || !signedHeaders!.split(';').includes('host')) {
    throw new Refusal(403, 'IncompleteSignatureException', 'The host and x-amz-date headers must be signed.');
  }
  const expected = recomputedSignature(req, { region, signedHeaders: signedHeaders!, amzDate, credential });
  if (expected !== signature) {
    throw new Refusal(
      403,
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    );
  }
}

/** The signature `aws4` computes over the request as received, its signed headers only, with the key's secret. */
function recomputedSignature(
  req: Received,
  at: { readonly region: string; readonly signedHeaders: string; readonly amzDate: string; readonly credential: AwsCredentialSet },
): string {
  const headers: Record<string, string> = {};
  for (const name of at.signedHeaders.split(';')) {
    const value = req.headers[name];
    if (value === undefined) return 'a signed header is missing';
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const signer = new aws4.RequestSigner(
    { host: headers.host ?? '', method: req.method, path: req.url, service: 'bedrock', region: at.region, headers, body: req.body, doNotModifyHeaders: true },
    { accessKeyId: at.credential.accessKeyId, secretAccessKey: at.credential.secretAccessKey },
  );
  (signer as unknown as { datetime: string }).datetime = at.amzDate;
  return signer.signature();
}

function route(req: Received, res: ServerResponse, options: FakeBedrockOptions): void {
  if (options.refuse !== undefined) throw new Refusal(options.refuse.status, options.refuse.type, options.refuse.message);
  const path = req.url.split('?')[0] ?? '';
  if (req.method === 'POST' && path === '/openai/v1/chat/completions') {
    cannedReply({ ...req, url: '/v1/chat/completions' }, res);
    return;
  }
  const invoke = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|count-tokens)$/.exec(path);
  if (req.method !== 'POST' || !invoke) throw new Refusal(404, 'UnknownOperationException', `No operation at ${path}`);
  const modelId = decodeURIComponent(invoke[1]!);
  const action = invoke[2]!;
  if (action === 'count-tokens') {
    countTokens(req);
    sendJson(res, 200, { inputTokens: FAKE_INPUT_TOKENS });
    return;
  }
  const body = options.anthropicBodies ? (req.json as Record<string, unknown>) : invokeBody(req.json);
  const message = options.model === undefined ? answerFor(modelId, body) : modelAnswer(options.model, body, modelId);
  if (action === 'invoke') {
    sendJson(res, 200, message, { 'x-amzn-requestid': 'fake-request-id', 'x-amzn-bedrock-input-token-count': '10' });
    return;
  }
  sendEventStream(res, streamEvents(message), options.exception, options.spoiled);
}

/** The model's answer; a request it refuses is Bedrock's ValidationException, with the model's message. */
function modelAnswer(model: ClaudeModel, body: Record<string, unknown>, modelId: string): Record<string, unknown> {
  try {
    return model(body, anthropicModelId(modelId));
  } catch (err) {
    if (err instanceof ModelRefusal) throw validation(err.message);
    throw err;
  }
}

/** Bedrock's invocation metrics on the last event, as it adds them. */
function withMetrics(events: Record<string, unknown>[]): Record<string, unknown>[] {
  const last = events.at(-1);
  const metrics = { inputTokenCount: 120, outputTokenCount: 30, invocationLatency: 120, firstByteLatency: 40 };
  return [...events.slice(0, -1), { ...last, 'amazon-bedrock-invocationMetrics': metrics }];
}

/** The InvokeModel body, checked as Bedrock checks it. */
function invokeBody(json: unknown): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw validation('Malformed input request, please reformat your input and try again.');
  const body = json as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    if (!BODY_FIELDS.has(key)) throw validation(`Malformed input request: #: extraneous key [${key}] is not permitted, please reformat your input and try again.`);
  }
  if (body.anthropic_version !== 'bedrock-2023-05-31') throw validation('Malformed input request: #/anthropic_version: bedrock-2023-05-31 is the only supported value');
  if (typeof body.max_tokens !== 'number') throw validation('Malformed input request: #: required key [max_tokens] not found, please reformat your input and try again.');
  if (!Array.isArray(body.messages)) throw validation('Malformed input request: #: required key [messages] not found, please reformat your input and try again.');
  if (body.anthropic_beta !== undefined) {
    if (!Array.isArray(body.anthropic_beta)) throw validation('Malformed input request: #/anthropic_beta: expected type: JSONArray');
    for (const beta of body.anthropic_beta) if (!KNOWN_BETAS.has(String(beta))) throw validation('invalid beta flag');
  }
  const betas = (body.anthropic_beta as string[] | undefined) ?? [];
  if (body.context_management !== undefined && !betas.includes('context-management-2025-06-27')) {
    throw validation('Malformed input request: #: extraneous key [context_management] is not permitted, please reformat your input and try again.');
  }
  return body;
}

/** CountTokens' body: the InvokeModel body, base64, under input.invokeModel.body. */
function countTokens(req: Received): void {
  const input = (req.json as { input?: { invokeModel?: { body?: unknown } } } | undefined)?.input;
  const encoded = input?.invokeModel?.body;
  if (typeof encoded !== 'string' || Object.keys(req.json as object).length !== 1) throw validation('1 validation error detected: Value null at \'input\' failed to satisfy constraint: Member must not be null');
  let inner: unknown;
  try {
    inner = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch {
    throw validation('The provided request is not valid JSON.');
  }
  invokeBody(inner);
}

type Block = Record<string, unknown> & { type: string };

/** A whole Messages answer: a tool call when tools are offered and no tool result came back yet, thinking when asked for. */
function answerFor(modelId: string, body: Record<string, unknown>): Record<string, unknown> {
  const content: Block[] = [];
  const thinking = body.thinking as { type?: string } | undefined;
  if (thinking?.type === 'enabled' || thinking?.type === 'adaptive') {
    content.push({ type: 'thinking', thinking: 'Thinking it over.', signature: 'EqQBCkYIARgCKkD-fake-bedrock-signature' });
  }
  const tools = Array.isArray(body.tools) ? (body.tools as { name?: string }[]) : [];
  const messages = body.messages as { role?: string; content?: unknown }[];
  const last = messages.at(-1);
  const answeredTool = Array.isArray(last?.content) && (last.content as { type?: string }[]).some((b) => b.type === 'tool_result');
  let stop = 'end_turn';
  if (tools.length > 0 && !answeredTool && tools[0]?.name) {
    content.push({ type: 'tool_use', id: 'toolu_bdrk_01', name: tools[0].name, input: { city: 'Paris' } });
    stop = 'tool_use';
  } else {
    content.push({ type: 'text', text: CANNED_TEXT });
  }
  return {
    id: 'msg_bdrk_01',
    type: 'message',
    role: 'assistant',
    model: modelId,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  };
}

/** The Anthropic stream events of a whole answer, as Bedrock sends them (with its invocation metrics at the end). */
export const streamEvents = (message: Record<string, unknown>): Record<string, unknown>[] => withMetrics(messageEvents(message));

const str = (value: string) => ({ type: 'string' as const, value });

/** One chunk message: the event's JSON, base64, in `bytes` (with the padding field Bedrock adds). */
export function chunkFrame(event: unknown): Uint8Array {
  return chunkFrameOf(JSON.stringify(event));
}

/** A `chunk` message carrying the event's JSON text as it is given. */
export function chunkFrameOf(eventJson: string): Uint8Array {
  const bytes = Buffer.from(eventJson).toString('base64');
  const message: Message = {
    headers: { ':message-type': str('event'), ':event-type': str('chunk'), ':content-type': str('application/json') },
    body: Buffer.from(JSON.stringify({ bytes, p: 'abcdefghij' })),
  };
  return codec.encode(message);
}

/** An exception message, as Bedrock ends a stream that failed. */
export function exceptionFrame(type: string, message: string): Uint8Array {
  return codec.encode({
    headers: { ':message-type': str('exception'), ':exception-type': str(type), ':content-type': str('application/json') },
    body: Buffer.from(JSON.stringify({ message })),
  });
}

/**
 * Writes the events as an event stream, with the exception frame where it was asked for. A spoiled
 * message and what follows it go a moment after the rest, so that the gateway has begun relaying.
 */
export function sendEventStream(res: ServerResponse, events: readonly unknown[], exception?: InjectedException, spoiled?: FakeBedrockOptions['spoiled']): void {
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'fake-request-id' });
  const frames: Uint8Array[] = [];
  const later: Uint8Array[] = [];
  events.forEach((event, i) => {
    if (exception?.afterChunks === i) frames.push(exceptionFrame(exception.type, exception.message));
    if (exception !== undefined && i >= exception.afterChunks) return;
    if (spoiled === undefined || i < spoiled.afterChunks) frames.push(chunkFrame(event));
    else later.push(i === spoiled.afterChunks ? spoiled.spoil(Buffer.from(chunkFrame(event))) : chunkFrame(event));
  });
  // Cut the bytes across message boundaries, as a network may.
  const write = (bytes: Buffer) => {
    for (let at = 0; at < bytes.length; at += 97) res.write(bytes.subarray(at, at + 97));
  };
  write(Buffer.concat(frames));
  if (later.length === 0) {
    res.end();
    return;
  }
  setTimeout(() => {
    write(Buffer.concat(later));
    res.end();
  }, 50);
}
