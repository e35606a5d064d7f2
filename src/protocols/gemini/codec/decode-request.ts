/**
 * A Gemini `generateContent` request → IR request. The model is the path's (`ctx.requestedModel`)
 * and the stream flag the method's (`ctx.stream`): the body carries neither.
 * @see node_modules/@google/genai/dist/genai.d.ts (`Content`, `Part`, `Tool`, `ToolConfig`, `GenerationConfig`)
 */
import { invalidRequest } from '../../../errors.js';
import type * as Ir from '../../../translate/ir.js';
import { decodeModelParts } from './decode-parts.js';
import { decodeMedia } from './media.js';
import { isObject, type Json, list, num, objects, str, warn } from './read.js';
import { fromOpenApiSchema } from './schema.js';
import { decodeThinking } from './thinking.js';

/** Fields that change what the model does and have no IR form. */
const UNTRANSLATED = ['safetySettings', 'cachedContent'] as const;

/** Function calls awaiting their responses, by name, for responses that carry no id. */
interface CallIds {
  readonly open: Map<string, string[]>;
}

function decodeCall(call: Json, turn: number, n: number, ids: CallIds): Ir.ToolCallPart {
  const name = str(call.name) ?? '';
  // Ids are Gemini 3's; older models' calls are matched to responses by name and order.
  const id = str(call.id) ?? `call_${turn}_${n}`;
  const open = ids.open.get(name);
  if (open) open.push(id);
  else ids.open.set(name, [id]);
  return { type: 'tool_call', id, name, arguments: JSON.stringify(isObject(call.args) ? call.args : {}), kind: 'function' };
}

function takeCallId(response: Json, ids: CallIds): string {
  const name = str(response.name) ?? '';
  const open = ids.open.get(name) ?? [];
  const id = str(response.id);
  if (id !== undefined) {
    const at = open.indexOf(id);
    if (at >= 0) open.splice(at, 1);
    return id;
  }
  return open.shift() ?? `call_${name}`;
}

/**
 * A function response's `response` object as result text: its `output` (or `error`, which marks the
 * result an error) when that is all it says, else the object as JSON.
 */
function decodeFunctionResponse(part: Json, ids: CallIds, ctx: Ir.TranslateContext): Ir.ToolResultPart {
  const response = isObject(part.response) ? part.response : {};
  const keys = Object.keys(response);
  const only = keys.length === 1 ? keys[0] : undefined;
  const value = only === 'output' || only === 'error' ? response[only] : response;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const media = objects(part.parts).flatMap((p) => decodeMedia(p, ctx) ?? []);
  return {
    type: 'tool_result',
    callId: takeCallId(part, ids),
    content: [...(text !== '' ? [{ type: 'text' as const, text }] : []), ...media],
    ...(only === 'error' ? { isError: true } : {}),
  };
}

function decodeUserParts(parts: readonly Json[], ids: CallIds, ctx: Ir.TranslateContext): Ir.UserPart[] {
  const out: Ir.UserPart[] = [];
  for (const part of parts) {
    if (isObject(part.functionResponse)) out.push(decodeFunctionResponse(part.functionResponse, ids, ctx));
    else if (typeof part.text === 'string') {
      if (part.text !== '' && part.thought !== true) out.push({ type: 'text', text: part.text });
    } else {
      const media = decodeMedia(part, ctx);
      if (media) out.push(media);
      else warn(ctx, `${Object.keys(part).join('/') || 'empty'} part`);
    }
  }
  return out;
}

function decodeContents(contents: readonly Json[], ctx: Ir.TranslateContext): Ir.Message[] {
  const ids: CallIds = { open: new Map() };
  return contents.map((content, turn) => {
    const parts = objects(content.parts);
    if (content.role === 'model') {
      let n = 0;
      return { role: 'assistant', content: decodeModelParts(parts, ctx, (call) => decodeCall(call, turn, n++, ids)) };
    }
    if (content.role !== undefined && content.role !== 'user') {
      throw invalidRequest(`\`contents[${turn}].role\` must be 'user' or 'model'.`, `contents[${turn}].role`);
    }
    return { role: 'user', content: decodeUserParts(parts, ids, ctx) };
  });
}

/** `systemInstruction`: a Content (its role ignored), or a bare string as some clients send. */
function decodeSystem(value: unknown): Ir.TextPart[] {
  if (typeof value === 'string') return value !== '' ? [{ type: 'text', text: value }] : [];
  if (!isObject(value)) return [];
  return objects(value.parts).flatMap((p) => (typeof p.text === 'string' && p.text !== '' ? [{ type: 'text' as const, text: p.text }] : []));
}

function decodeTools(tools: unknown, ctx: Ir.TranslateContext): Ir.Tool[] {
  const out: Ir.Tool[] = [];
  for (const tool of objects(tools)) {
    for (const [key, value] of Object.entries(tool)) {
      if (key !== 'functionDeclarations') {
        // Google Search, code execution, URL context…: they run on Google's side.
        warn(ctx, `${key} tool (server)`);
        continue;
      }
      for (const fn of objects(value)) {
        const description = str(fn.description);
        const parameters = isObject(fn.parametersJsonSchema) ? fn.parametersJsonSchema : isObject(fn.parameters) ? fromOpenApiSchema(fn.parameters) : undefined;
        out.push({
          kind: 'function',
          name: str(fn.name) ?? '',
          ...(description !== undefined ? { description } : {}),
          ...(isObject(parameters) ? { parameters } : {}),
        });
      }
    }
  }
  return out;
}

function decodeToolChoice(toolConfig: unknown, ctx: Ir.TranslateContext): Ir.ToolChoice | undefined {
  const config = isObject(toolConfig) && isObject(toolConfig.functionCallingConfig) ? toolConfig.functionCallingConfig : undefined;
  if (config === undefined) return undefined;
  switch (config.mode) {
    case undefined:
    case 'MODE_UNSPECIFIED':
    case 'AUTO':
      return { type: 'auto' };
    case 'NONE':
      return { type: 'none' };
    case 'VALIDATED':
      warn(ctx, 'function calling mode VALIDATED as AUTO');
      return { type: 'auto' };
    case 'ANY': {
      const names = list(config.allowedFunctionNames).filter((n): n is string => typeof n === 'string');
      if (names.length === 1) return { type: 'tool', name: names[0]! };
      if (names.length > 1) warn(ctx, 'allowedFunctionNames');
      return { type: 'required' };
    }
    default:
      warn(ctx, `function calling mode ${String(config.mode)}`);
      return undefined;
  }
}

function decodeResponseFormat(config: Json, ctx: Ir.TranslateContext): Ir.ResponseFormat | undefined {
  const mime = str(config.responseMimeType);
  const schema = isObject(config.responseJsonSchema) ? config.responseJsonSchema : isObject(config.responseSchema) ? fromOpenApiSchema(config.responseSchema) : undefined;
  if (mime === undefined || mime === 'text/plain') return schema === undefined ? undefined : { type: 'json_schema', schema: schema as Json };
  if (mime !== 'application/json') {
    warn(ctx, `responseMimeType ${mime}`);
    return undefined;
  }
  return isObject(schema) ? { type: 'json_schema', schema } : { type: 'json_object' };
}

const stringList = (v: unknown): string[] => list(v).filter((s): s is string => typeof s === 'string');

export function decodeRequest(body: Json, ctx: Ir.TranslateContext): Ir.Request {
  if (!Array.isArray(body.contents)) throw invalidRequest('`contents` must be an array.', 'contents');
  const messages = decodeContents(objects(body.contents), ctx);
  const config = isObject(body.generationConfig) ? body.generationConfig : {};
  const tools = decodeTools(body.tools, ctx);
  const toolChoice = tools.length > 0 ? decodeToolChoice(body.toolConfig, ctx) : undefined;
  const maxOutputTokens = num(config.maxOutputTokens);
  const temperature = num(config.temperature);
  const topP = num(config.topP);
  const topK = num(config.topK);
  const stop = stringList(config.stopSequences);
  const reasoning = decodeThinking(config.thinkingConfig, ctx);
  const responseFormat = decodeResponseFormat(config, ctx);
  if ((num(config.candidateCount) ?? 1) > 1) warn(ctx, 'candidateCount > 1');
  for (const field of ['presencePenalty', 'frequencyPenalty', 'seed', 'responseLogprobs', 'responseModalities', 'speechConfig'] as const) {
    if (config[field] !== undefined && config[field] !== null) warn(ctx, field);
  }
  for (const field of UNTRANSLATED) if (body[field] !== undefined && body[field] !== null) warn(ctx, field);
  return {
    model: ctx.requestedModel,
    system: decodeSystem(body.systemInstruction),
    messages,
    tools,
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { topP } : {}),
    ...(topK !== undefined ? { topK } : {}),
    ...(stop.length > 0 ? { stop } : {}),
    stream: ctx.stream === true,
    ...(reasoning !== undefined ? { reasoning } : {}),
    ...(responseFormat !== undefined ? { responseFormat } : {}),
  };
}
