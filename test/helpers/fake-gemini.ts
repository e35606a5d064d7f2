/**
 * A fake Gemini API serving a Gemini 3 model, behaving as the real one does where the gateway can tell:
 * - the key must come in `x-goog-api-key` (or the `key` query parameter); none is 403 PERMISSION_DENIED,
 *   a wrong one 400 INVALID_ARGUMENT with reason API_KEY_INVALID, an OAuth header 401, all in Google's
 *   error shape (`{error: {code, message, status, details}}`);
 * - the path must be `/v1beta/models/{model}:{method}` (or `/v1/…`), the method `generateContent`,
 *   `streamGenerateContent` or `countTokens`; a stream without `alt=sse` is answered as one JSON array,
 *   as Google does;
 * - the body may hold only the fields of a `GenerateContentRequest` (no `stream`, no OpenAI or
 *   Anthropic field), each part one kind of data, roles `user` and `model`, and in a function's
 *   `parameters` only the JSON Schema keywords of Gemini's `Schema` (no `additionalProperties`,
 *   `$schema`, `const`, …): anything else is 400 INVALID_ARGUMENT, with Google's message naming the
 *   field at Google's path;
 * - a function-calling turn sent back must carry the `thoughtSignature` the model gave on its first
 *   call part (Gemini 3 checks the current turn: the contents after the last user message that is not
 *   only function responses), else Google's refusal; a signature it did not give is "corrupted", unless
 *   it is one of the two values Google documents for histories it did not produce.
 * Answers as a model: a `functionCall` of the first declared function, with a thought signature, when
 * tools are offered and the turn has no function response yet; text after, with a signature on its
 * last part, as Gemini 3 gives; a thought summary first when `thinkingConfig.includeThoughts` asks.
 * Streams are `alt=sse` events of one `GenerateContentResponse` each (`\r\n\r\n` between them, as
 * Google writes): text split over chunks, a function call whole, `usageMetadata` with the last.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from './fake-upstream.js';
import type { Behaviour, Received } from './received.js';

export const GEMINI_API_KEY = 'AIza-fake-gemini-0123456789abcdefghij';

/** The text of every answer that is not a function call. */
export const GEMINI_TEXT = 'Hello from Gemini';
const WORDS = ['Hello', ' from', ' Gemini'];
const THOUGHT_SUMMARY = 'Thinking about what the user asked.';

/** What Google documents as accepted in place of a signature, for function calls it did not produce. */
export const SIGNATURE_SENTINELS: readonly string[] = ['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go'];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A refusal: Google's HTTP code, status name and message. */
export class GoogleRefusal extends Error {
  constructor(
    readonly code: number,
    readonly status: string,
    message: string,
    readonly details?: readonly Obj[],
  ) {
    super(message);
  }
}

const invalid = (message: string, details?: readonly Obj[]) => new GoogleRefusal(400, 'INVALID_ARGUMENT', message, details);

/** Google's refusal of a field it does not know, at its (snake_case) path. */
function unknownName(name: string, at: string): GoogleRefusal {
  const description = at === '' ? `Invalid JSON payload received. Unknown name "${name}": Cannot find field.` : `Invalid JSON payload received. Unknown name "${name}" at '${at}': Cannot find field.`;
  return invalid(description, [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: at, description }] }]);
}

export function googleError(res: ServerResponse, refusal: GoogleRefusal): void {
  sendJson(res, refusal.code, { error: { code: refusal.code, message: refusal.message, status: refusal.status, ...(refusal.details ? { details: refusal.details } : {}) } });
}

// ------------------------------------------------------------------ the request's shape

/** Proto field names: JSON takes the lowerCamel name and the snake_case one alike; paths use snake_case. */
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** The fields of `value` as their lowerCamel names; an unknown one is refused at `at`. */
function fields(value: unknown, known: readonly string[], at: string): Obj {
  if (!isObj(value)) throw invalid(`Invalid value at '${at}', expected an object.`);
  const out: Obj = {};
  for (const [name, v] of Object.entries(value)) {
    const key = camel(name);
    if (!known.includes(key)) throw unknownName(name, at);
    out[key] = v;
  }
  return out;
}

const list = (value: unknown, at: string): unknown[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid(`Invalid value at '${at}', expected a list.`);
  return value;
};

const REQUEST_FIELDS = ['model', 'contents', 'tools', 'toolConfig', 'safetySettings', 'systemInstruction', 'generationConfig', 'cachedContent', 'serviceTier'];
const CONTENT_FIELDS = ['role', 'parts'];
const PART_FIELDS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
  'thought',
  'thoughtSignature',
  'videoMetadata',
  'partMetadata',
  'mediaResolution',
];
/** A part's `data` oneof: exactly one of these. */
const PART_DATA = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'];
const TOOL_FIELDS = ['functionDeclarations', 'googleSearchRetrieval', 'codeExecution', 'googleSearch', 'urlContext', 'computerUse', 'fileSearch', 'googleMaps'];
const DECLARATION_FIELDS = ['name', 'description', 'parameters', 'parametersJsonSchema', 'response', 'responseJsonSchema', 'behavior'];
/** Gemini's `Schema`: the subset of JSON Schema `parameters` may use (OpenAPI 3.0's, as Google took it). */
const SCHEMA_FIELDS = [
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
];
const SCHEMA_TYPES = ['TYPE_UNSPECIFIED', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL'];
const GENERATION_FIELDS = [
  'stopSequences',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'responseModalities',
  'candidateCount',
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
  'responseLogprobs',
  'logprobs',
  'enableEnhancedCivicAnswers',
  'speechConfig',
  'thinkingConfig',
  'mediaResolution',
  'imageConfig',
];
const THINKING_FIELDS = ['includeThoughts', 'thinkingBudget', 'thinkingLevel'];
const TOOL_CONFIG_FIELDS = ['functionCallingConfig', 'retrievalConfig'];
const CALLING_FIELDS = ['mode', 'allowedFunctionNames'];
const CALLING_MODES = ['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'];
/** Function names Gemini takes. */
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/** One part of a content, as the fake reads it. */
interface Part {
  readonly text?: string;
  readonly thought?: boolean;
  readonly thoughtSignature?: string;
  readonly functionCall?: { readonly name: string; readonly args: unknown; readonly id?: string };
  readonly functionResponse?: { readonly name: string; readonly response: unknown; readonly id?: string };
}

interface Content {
  readonly role: 'user' | 'model';
  readonly parts: readonly Part[];
}

/** A `GenerateContentRequest`, checked. */
export interface GeminiRequest {
  readonly contents: readonly Content[];
  readonly functions: readonly { readonly name: string; readonly parameters?: Obj }[];
  readonly callingMode: string;
  readonly includeThoughts: boolean;
  readonly systemText: string;
}

function readParts(value: unknown, at: string): Part[] {
  return list(value, `${at}.parts`).map((raw, j) => {
    const where = `${at}.parts[${j}]`;
    const part = fields(raw, PART_FIELDS, where);
    const data = PART_DATA.filter((d) => part[d] !== undefined);
    if (data.length !== 1) {
      throw invalid(
        data.length === 0
          ? `* GenerateContentRequest.${where}.data: required oneof field 'data' must have one initialized field\n`
          : `Invalid value at '${where}' (oneof field 'data' is already set. Cannot set '${snake(data[1]!)}')`,
      );
    }
    if (part.text !== undefined && typeof part.text !== 'string') throw invalid(`Invalid value at '${where}.text' (TYPE_STRING)`);
    if (part.thoughtSignature !== undefined && (typeof part.thoughtSignature !== 'string' || !/^[A-Za-z0-9+/_=-]+$/.test(part.thoughtSignature))) {
      throw invalid(`Invalid value at '${where}.thought_signature' (TYPE_BYTES), Base64 decoding failed for "${String(part.thoughtSignature)}"`);
    }
    if (part.inlineData !== undefined) fields(part.inlineData, ['mimeType', 'data', 'displayName'], `${where}.inline_data`);
    if (part.fileData !== undefined) fields(part.fileData, ['mimeType', 'fileUri', 'displayName'], `${where}.file_data`);
    if (part.functionCall !== undefined) {
      const call = fields(part.functionCall, ['id', 'name', 'args', 'partialArgs', 'willContinue'], `${where}.function_call`);
      if (typeof call.name !== 'string' || call.name === '') throw invalid(`* GenerateContentRequest.${where}.function_call.name: Name cannot be empty.\n`);
      if (call.args !== undefined && !isObj(call.args)) throw invalid(`Invalid value at '${where}.function_call.args' (type.googleapis.com/google.protobuf.Struct)`);
      return { ...part, functionCall: { name: call.name, args: call.args ?? {}, ...(typeof call.id === 'string' ? { id: call.id } : {}) } } as Part;
    }
    if (part.functionResponse !== undefined) {
      const response = fields(part.functionResponse, ['id', 'name', 'response', 'parts', 'willContinue', 'scheduling'], `${where}.function_response`);
      if (typeof response.name !== 'string' || response.name === '') throw invalid(`* GenerateContentRequest.${where}.function_response.name: Name cannot be empty.\n`);
      if (!isObj(response.response)) throw invalid(`Invalid value at '${where}.function_response.response' (type.googleapis.com/google.protobuf.Struct)`);
    }
    return part as Part;
  });
}

/** A `Schema` (`parameters`, `items`, a property's value) with only Gemini's keywords, at `at`. */
function checkSchema(value: unknown, at: string): void {
  const schema = fields(value, SCHEMA_FIELDS, at);
  if (schema.type !== undefined && (typeof schema.type !== 'string' || !SCHEMA_TYPES.includes(schema.type.toUpperCase()))) {
    throw invalid(`Invalid value at '${at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), ${JSON.stringify(schema.type)}`);
  }
  if (schema.properties !== undefined) {
    if (!isObj(schema.properties)) throw invalid(`Invalid value at '${at}.properties', expected an object.`);
    for (const [i, v] of Object.values(schema.properties).entries()) checkSchema(v, `${at}.properties[${i}].value`);
    for (const [i, name] of list(schema.required, `${at}.required`).entries()) {
      if (typeof name !== 'string' || !(name in schema.properties)) throw invalid(`* GenerateContentRequest.${at}.required[${i}]: property is not defined\n`);
    }
  }
  if (schema.items !== undefined) checkSchema(schema.items, `${at}.items`);
  for (const [i, v] of list(schema.anyOf, `${at}.any_of`).entries()) checkSchema(v, `${at}.any_of[${i}]`);
}

export function readGenerateRequest(body: unknown, prefix = ''): GeminiRequest {
  const request = fields(body, REQUEST_FIELDS, prefix.replace(/\.$/, ''));
  const contents = list(request.contents, `${prefix}contents`).map((raw, i): Content => {
    const at = `${prefix}contents[${i}]`;
    const content = fields(raw, CONTENT_FIELDS, at);
    const role = content.role ?? 'user';
    if (role !== 'user' && role !== 'model') throw invalid('Please use a valid role: user, model.');
    return { role, parts: readParts(content.parts, at) };
  });
  if (contents.length === 0) throw invalid('* GenerateContentRequest.contents: contents is not specified\n');
  let systemText = '';
  if (request.systemInstruction !== undefined) {
    const at = `${prefix}system_instruction`;
    systemText = readParts(fields(request.systemInstruction, CONTENT_FIELDS, at).parts, at)
      .map((p) => p.text ?? '')
      .join('\n');
  }
  const functions: { name: string; parameters?: Obj }[] = [];
  for (const [t, raw] of list(request.tools, `${prefix}tools`).entries()) {
    const tool = fields(raw, TOOL_FIELDS, `${prefix}tools[${t}]`);
    for (const [d, rawDeclaration] of list(tool.functionDeclarations, `${prefix}tools[${t}].function_declarations`).entries()) {
      const at = `${prefix}tools[${t}].function_declarations[${d}]`;
      const declaration = fields(rawDeclaration, DECLARATION_FIELDS, at);
      if (typeof declaration.name !== 'string' || !FUNCTION_NAME.test(declaration.name)) {
        throw invalid(
          `* GenerateContentRequest.${at}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n`,
        );
      }
      if (declaration.parameters !== undefined && declaration.parametersJsonSchema !== undefined) {
        throw invalid(`* GenerateContentRequest.${at}.parameters_json_schema: parameters and parameters_json_schema cannot both be set.\n`);
      }
      if (declaration.parameters !== undefined) {
        checkSchema(declaration.parameters, `${at}.parameters`);
        const params = declaration.parameters as Obj;
        if (String(params.type).toUpperCase() === 'OBJECT' && (!isObj(params.properties) || Object.keys(params.properties).length === 0)) {
          throw invalid(`* GenerateContentRequest.${at}.parameters.properties: should be non-empty for OBJECT type\n`);
        }
      }
      const parameters = (declaration.parameters ?? declaration.parametersJsonSchema) as Obj | undefined;
      functions.push({ name: declaration.name, ...(parameters ? { parameters } : {}) });
    }
  }
  let callingMode = 'AUTO';
  if (request.toolConfig !== undefined) {
    const config = fields(request.toolConfig, TOOL_CONFIG_FIELDS, `${prefix}tool_config`);
    if (config.functionCallingConfig !== undefined) {
      const calling = fields(config.functionCallingConfig, CALLING_FIELDS, `${prefix}tool_config.function_calling_config`);
      if (calling.mode !== undefined) {
        if (typeof calling.mode !== 'string' || !CALLING_MODES.includes(calling.mode)) {
          throw invalid(`Invalid value at '${prefix}tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), ${JSON.stringify(calling.mode)}`);
        }
        callingMode = calling.mode;
      }
    }
  }
  let includeThoughts = false;
  if (request.generationConfig !== undefined) {
    const generation = fields(request.generationConfig, GENERATION_FIELDS, `${prefix}generation_config`);
    if (generation.responseSchema !== undefined) checkSchema(generation.responseSchema, `${prefix}generation_config.response_schema`);
    if (generation.thinkingConfig !== undefined) {
      const thinking = fields(generation.thinkingConfig, THINKING_FIELDS, `${prefix}generation_config.thinking_config`);
      // Google documents the refusal of both at once on Gemini 3; the wording is this fake's.
      if (thinking.thinkingBudget !== undefined && thinking.thinkingLevel !== undefined) {
        throw invalid('thinking_budget and thinking_level cannot both be set; use thinking_level.');
      }
      includeThoughts = thinking.includeThoughts === true;
    }
  }
  return { contents, functions, callingMode, includeThoughts, systemText };
}

// ------------------------------------------------------------------ thought signatures

/**
 * The contents of the current turn: after the last user content that is not only function
 * responses (the user's own message starts a turn; a function response continues it).
 */
function currentTurn(contents: readonly Content[]): { readonly from: number; readonly contents: readonly Content[] } {
  let from = 0;
  contents.forEach((c, i) => {
    if (c.role === 'user' && c.parts.some((p) => p.functionResponse === undefined)) from = i;
  });
  return { from, contents: contents.slice(from) };
}

/**
 * Gemini 3's checks of the signatures sent back: present where required and, given the ones the model
 * gave (`issued`: signature → `call:{name}` or `text`), each one of them or Google's stand-in.
 * Without `issued` (a suite that answers as a model it does not run) their origin is not checked.
 */
export function checkSignatures(contents: readonly Content[], issued?: ReadonlyMap<string, string>): void {
  const turn = currentTurn(contents);
  turn.contents.forEach((content, i) => {
    if (content.role !== 'model') return;
    const calls = content.parts.filter((p) => p.functionCall !== undefined);
    const first = calls[0];
    if (first === undefined) return;
    if (first.thoughtSignature === undefined) {
      throw invalid(
        `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${first.functionCall!.name}\` , position ${turn.from + i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
      );
    }
  });
  // Any signature sent back must be one this model gave (for that call), or Google's documented stand-in.
  for (const content of issued === undefined ? [] : contents) {
    for (const part of content.parts) {
      const signature = part.thoughtSignature;
      if (signature === undefined || SIGNATURE_SENTINELS.includes(signature)) continue;
      const given = issued!.get(signature);
      if (given === undefined || (part.functionCall !== undefined && given !== `call:${part.functionCall.name}`)) throw invalid('Corrupted thought signature.');
    }
  }
  // Each function-calling turn is answered by as many responses as it made calls.
  contents.forEach((content, i) => {
    const calls = content.parts.filter((p) => p.functionCall !== undefined).length;
    const next = contents[i + 1];
    if (content.role !== 'model' || calls === 0 || next === undefined) return;
    const responses = next.parts.filter((p) => p.functionResponse !== undefined).length;
    if (responses !== calls) {
      throw invalid('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
    }
  });
}

/** A `GenerateContentRequest` as Gemini 3 checks it: its fields, schemas and signatures (see checkSignatures). Throws a GoogleRefusal. */
export function checkGenerateRequest(body: unknown, issued?: ReadonlyMap<string, string>): GeminiRequest {
  const request = readGenerateRequest(body);
  checkSignatures(request.contents, issued);
  return request;
}

// ------------------------------------------------------------------ answers

/** A rough token count, as a fake's: four characters a token. */
const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function promptTokens(request: GeminiRequest): number {
  const text = request.contents.flatMap((c) => c.parts.map((p) => p.text ?? JSON.stringify(p.functionCall ?? p.functionResponse ?? ''))).join('');
  return tokens(request.systemText + text + (request.functions.length > 0 ? JSON.stringify(request.functions) : ''));
}

/** Arguments for a declared function: each required property given a value of its type. */
function sampleArgs(parameters: Obj | undefined): Obj {
  const properties = isObj(parameters?.properties) ? parameters.properties : {};
  const required = Array.isArray(parameters?.required) ? (parameters.required as string[]) : Object.keys(properties);
  const out: Obj = {};
  for (const name of required) {
    const type = String((properties[name] as Obj | undefined)?.type ?? 'string').toUpperCase();
    out[name] = type === 'NUMBER' || type === 'INTEGER' ? 1 : type === 'BOOLEAN' ? true : type === 'ARRAY' ? [] : type === 'OBJECT' ? {} : 'Paris';
  }
  return out;
}

interface Answer {
  /** The answer's parts, in the order streamed; `words` split a text part over chunks. */
  readonly parts: readonly Obj[];
  readonly outputTokens: number;
  readonly thoughtTokens: number;
}

export interface FakeGemini {
  readonly behaviour: Behaviour;
  /** How many thought signatures it has given. */
  signaturesGiven(): number;
  /** Whether it gave `signature` (on a call to `name`, when named). */
  gave(signature: unknown, name?: string): boolean;
}

export interface FakeGeminiOptions {
  readonly apiKey: string;
  /** The models `GET /models` lists. */
  readonly models?: readonly string[];
}

const PATH = /^\/(v1beta|v1)\/models\/([^/:]+):([A-Za-z]+)$/;

export function fakeGemini({ apiKey, models = ['gemini-3-pro-preview', 'gemini-3-flash-preview'] }: FakeGeminiOptions): FakeGemini {
  const issued = new Map<string, string>();
  let responses = 0;
  const sign = (what: string) => {
    const signature = randomBytes(36).toString('base64');
    issued.set(signature, what);
    return signature;
  };

  function answer(request: GeminiRequest): Answer {
    const thought = request.includeThoughts ? [{ text: THOUGHT_SUMMARY, thought: true }] : [];
    const thoughtTokens = request.includeThoughts ? 24 : 0;
    const turn = currentTurn(request.contents).contents;
    const responded = turn.some((c) => c.parts.some((p) => p.functionResponse !== undefined));
    const fn = request.functions[0];
    if (fn !== undefined && !responded && request.callingMode !== 'NONE') {
      const args = sampleArgs(fn.parameters);
      return { parts: [...thought, { functionCall: { name: fn.name, args }, thoughtSignature: sign(`call:${fn.name}`) }], outputTokens: tokens(JSON.stringify(args)), thoughtTokens };
    }
    return { parts: [...thought, { text: GEMINI_TEXT, thoughtSignature: sign('text') }], outputTokens: tokens(GEMINI_TEXT), thoughtTokens };
  }

  function usage(request: GeminiRequest, a: Answer): Obj {
    const prompt = promptTokens(request);
    return {
      promptTokenCount: prompt,
      candidatesTokenCount: a.outputTokens,
      totalTokenCount: prompt + a.outputTokens + a.thoughtTokens,
      ...(a.thoughtTokens > 0 ? { thoughtsTokenCount: a.thoughtTokens } : {}),
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
    };
  }

  /** The answer as `GenerateContentResponse` chunks: text split over chunks, a call whole, usage and the finish with the last. */
  function chunks(model: string, request: GeminiRequest, a: Answer, whole: boolean): Obj[] {
    const responseId = `fake-gemini-${++responses}`;
    const chunk = (parts: readonly Obj[], last: boolean): Obj => ({
      candidates: [{ content: { role: 'model', parts }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
      ...(last ? { usageMetadata: usage(request, a) } : {}),
      modelVersion: model,
      responseId,
    });
    if (whole) return [chunk(a.parts, true)];
    const groups: Obj[][] = [];
    for (const part of a.parts) {
      if (typeof part.text === 'string' && part.thought !== true) {
        // Gemini 3 streams the text, then gives its signature on an empty part with the finish.
        for (const word of WORDS) groups.push([{ text: word }]);
        groups.push([{ text: '', thoughtSignature: part.thoughtSignature }]);
      } else {
        groups.push([part]);
      }
    }
    return groups.map((parts, i) => chunk(parts, i === groups.length - 1));
  }

  function generate(req: Received, res: ServerResponse, model: string, stream: boolean, sse: boolean): void {
    const request = checkGenerateRequest(req.json, issued);
    const answerChunks = chunks(model, request, answer(request), !stream);
    if (!stream) {
      sendJson(res, 200, answerChunks[0]);
    } else if (sse) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(answerChunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join(''));
    } else {
      // Without alt=sse Google streams one JSON array.
      sendJson(res, 200, answerChunks);
    }
  }

  function countTokens(req: Received, res: ServerResponse): void {
    const body = fields(req.json, ['contents', 'generateContentRequest'], '');
    if (body.contents !== undefined && body.generateContentRequest !== undefined) {
      throw invalid('contents and generate_content_request are mutually exclusive: send one.');
    }
    let request: GeminiRequest;
    if (body.generateContentRequest !== undefined) {
      const inner = body.generateContentRequest as Obj;
      if (typeof inner?.model !== 'string' || !inner.model.startsWith('models/')) {
        throw invalid('* CountTokensRequest.generate_content_request.model: Model name is required, in the form models/{model}.\n');
      }
      request = readGenerateRequest(inner, 'generate_content_request.');
    } else {
      request = readGenerateRequest({ contents: body.contents });
    }
    const total = promptTokens(request);
    sendJson(res, 200, { totalTokens: total, promptTokensDetails: [{ modality: 'TEXT', tokenCount: total }] });
  }

  const behaviour: Behaviour = (req, res) => {
    const url = new URL(req.url, 'http://fake');
    try {
      if (req.headers.authorization !== undefined) {
        throw new GoogleRefusal(
          401,
          'UNAUTHENTICATED',
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        );
      }
      const key = req.headers['x-goog-api-key'] ?? url.searchParams.get('key') ?? undefined;
      if (key === undefined) {
        throw new GoogleRefusal(
          403,
          'PERMISSION_DENIED',
          "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
        );
      }
      if (key !== apiKey) {
        throw invalid('API key not valid. Please pass a valid API key.', [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
        ]);
      }
      if (req.method === 'GET' && /^\/(v1beta|v1)\/models$/.test(url.pathname)) {
        sendJson(res, 200, {
          models: models.map((m) => ({
            name: `models/${m}`,
            displayName: m,
            inputTokenLimit: 1_048_576,
            outputTokenLimit: 65_536,
            supportedGenerationMethods: ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'],
            thinking: true,
          })),
        });
        return;
      }
      const path = PATH.exec(url.pathname);
      if (req.method !== 'POST' || path === null) throw new GoogleRefusal(404, 'NOT_FOUND', `The requested URL ${url.pathname} was not found on this server.`);
      const [, , model, method] = path;
      if (!models.includes(model!)) {
        throw new GoogleRefusal(404, 'NOT_FOUND', `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`);
      }
      switch (method) {
        case 'generateContent':
          generate(req, res, model!, false, false);
          return;
        case 'streamGenerateContent':
          generate(req, res, model!, true, url.searchParams.get('alt') === 'sse');
          return;
        case 'countTokens':
          countTokens(req, res);
          return;
        default:
          throw new GoogleRefusal(404, 'NOT_FOUND', `The requested URL ${url.pathname} was not found on this server.`);
      }
    } catch (err) {
      if (!(err instanceof GoogleRefusal)) throw err;
      googleError(res, err);
    }
  };
  return {
    behaviour,
    signaturesGiven: () => issued.size,
    gave: (signature, name) => typeof signature === 'string' && issued.has(signature) && (name === undefined || issued.get(signature) === `call:${name}`),
  };
}
