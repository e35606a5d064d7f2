/**
 * Gemini `generateContent`, `streamGenerateContent` and `countTokens`: the shallow checks and the
 * features a request uses. The model is the path's `{model}`, and streaming is the endpoint: the
 * body names neither. A count takes `contents`, or a whole `generateContentRequest`.
 * @see docs/protocols.md, "Gemini request fields"
 */
import { invalidRequest } from '../../errors.js';
import { featuresOf } from '../features.js';
import { isObject, type Json } from '../json.js';
import { checkCap, requireObjectBody } from '../shallow.js';
import type { Feature, InboundCall, RequestInfo, RequestLimits } from '../types.js';
import { GEMINI_FEATURES } from './features.js';
import { field, objectsAt } from './fields.js';

/** The model named in the path: `{model}`, or the resource name `models/{model}` some callers send. */
export function pathModel(params: InboundCall['params']): string {
  const raw = params.model ?? '';
  const model = raw.startsWith('models/') ? raw.slice('models/'.length) : raw;
  if (model.trim() === '') throw invalidRequest('The model in the path must be a non-empty name: `models/{model}:generateContent`.', 'model');
  return model;
}

/** The create request a count_tokens body counts: its `generateContentRequest`, else the body itself (`contents`). */
export function countedRequest(body: Json): Json {
  const wrapped = field(body, 'generateContentRequest');
  return isObject(wrapped) ? wrapped : body;
}

/** `contents`: a non-empty array of `Content` objects, each with a `parts` array and, when given, a string `role`. */
function requireContents(body: Json, limits: RequestLimits, where: string): Json[] {
  const contents = field(body, 'contents');
  if (contents === undefined || contents === null) throw invalidRequest(`Missing required parameter: \`${where}contents\`.`, `${where}contents`);
  if (!Array.isArray(contents)) throw invalidRequest(`\`${where}contents\` must be an array of Content objects.`, `${where}contents`);
  if (contents.length === 0) throw invalidRequest(`\`${where}contents\` must hold at least one Content.`, `${where}contents`);
  checkCap(contents.length, limits, 'maxMessages', `${where}contents`, (n) => `\`${where}contents\` has ${n} entries`);
  for (let i = 0; i < contents.length; i++) {
    const c: unknown = contents[i];
    const at = `${where}contents[${i}]`;
    if (!isObject(c)) throw invalidRequest(`\`${at}\` must be a Content object.`, at);
    const role = field(c, 'role');
    if (role !== undefined && role !== null && typeof role !== 'string') throw invalidRequest(`\`${at}.role\` must be a string ("user" or "model").`, `${at}.role`);
    const parts = field(c, 'parts');
    if (!Array.isArray(parts)) throw invalidRequest(`\`${at}.parts\` must be an array of Part objects.`, `${at}.parts`);
    for (let j = 0; j < parts.length; j++) {
      if (!isObject(parts[j])) throw invalidRequest(`\`${at}.parts[${j}]\` must be a Part object.`, `${at}.parts[${j}]`);
    }
  }
  return contents as Json[];
}

/** The tools a request declares: each function declaration, and each other tool (a built-in one) as one. */
function countTools(body: Json, where: string): number {
  const tools = field(body, 'tools');
  if (tools === undefined || tools === null) return 0;
  if (!Array.isArray(tools)) throw invalidRequest(`\`${where}tools\` must be an array of Tool objects.`, `${where}tools`);
  let n = 0;
  for (const tool of tools) {
    const declarations = field(tool, 'functionDeclarations');
    n += Array.isArray(declarations) && declarations.length > 0 ? declarations.length : 1;
  }
  return n;
}

/** The parts of the contents and of the system instruction, a function response's own parts among them. */
function countParts(contents: readonly Json[], body: Json): number {
  let n = 0;
  const count = (content: unknown): void => {
    for (const part of objectsAt(content, 'parts')) n += 1 + objectsAt(field(part, 'functionResponse'), 'parts').length;
  };
  for (const c of contents) count(c);
  count(field(body, 'systemInstruction'));
  return n;
}

/** The checks of one create request (`where`: the prefix of its fields, inside a count's `generateContentRequest`). */
function checkCreate(body: Json, limits: RequestLimits, where: string): void {
  const contents = requireContents(body, limits, where);
  checkCap(countTools(body, where), limits, 'maxTools', `${where}tools`, (n) => `\`${where}tools\` declares ${n} tools`);
  checkCap(countParts(contents, body), limits, 'maxContentBlocks', `${where}contents`, (n) => `The contents and \`${where}systemInstruction\` hold ${n} parts together`);
  const config = field(body, 'generationConfig');
  if (config !== undefined && config !== null && !isObject(config)) throw invalidRequest(`\`${where}generationConfig\` must be an object.`, `${where}generationConfig`);
  const system = field(body, 'systemInstruction');
  if (system !== undefined && system !== null && !isObject(system)) throw invalidRequest(`\`${where}systemInstruction\` must be a Content object.`, `${where}systemInstruction`);
}

export function inspectGeminiRequest(call: InboundCall, limits: RequestLimits): RequestInfo {
  const json = requireObjectBody(call.body);
  const model = pathModel(call.params);
  if (call.operation === 'count_tokens') {
    const wrapped = field(json, 'generateContentRequest');
    if (wrapped !== undefined && wrapped !== null) {
      if (!isObject(wrapped)) throw invalidRequest('`generateContentRequest` must be a GenerateContentRequest object.', 'generateContentRequest');
      checkCreate(wrapped, limits, 'generateContentRequest.');
    } else checkCreate(json, limits, '');
    // count_tokens asks for no feature: it only counts.
    return { model, stream: false, features: [] };
  }
  checkCreate(json, limits, '');
  const stream = call.stream === true;
  const features: Feature[] = featuresOf(GEMINI_FEATURES, json);
  if (stream) features.unshift('streaming');
  return { model, stream, features };
}
