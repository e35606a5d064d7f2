/**
 * IR request → Gemini `generateContent` body. No model and no stream flag: the provider puts them
 * in the URL (`models/{model}:generateContent` or `:streamGenerateContent?alt=sse`).
 * @see node_modules/@google/genai/dist/genai.d.ts (`Content`, `Part`, `Tool`, `ToolConfig`, `GenerationConfig`)
 */
import { invalidRequest } from '../../../errors.js';
import { append } from '../../../translate/common/append.js';
import { argumentsToObject, CUSTOM_INPUT_SCHEMA } from '../../../translate/common/tool-args.js';
import { upstreamToolName } from '../../../translate/common/tool-names.js';
import type * as Ir from '../../../translate/ir.js';
import { encodeModelParts } from './encode-parts.js';
import { encodeFile, encodeImage } from './media.js';
import { isObject, type Json, str, warn } from './read.js';
import { toGeminiSchema } from './schema.js';
import { encodeThinking } from './thinking.js';
import type { Content, FunctionCallingMode, FunctionDeclaration, GenerationConfig, Part, RequestBody } from './wire.js';

type CallerToolRef = { readonly name: string; readonly kind: Ir.ToolKind; readonly namespace?: string | undefined };

const callerTool = (t: CallerToolRef) => ({ name: t.name, kind: t.kind, ...(t.namespace !== undefined ? { namespace: t.namespace } : {}) });

/** What a custom tool's input must look like, for the model that only sees a string parameter. */
function customFormatNote(format: Ir.Tool['format']): string {
  if (!format || format.type === 'text') return 'The `input` parameter is free-form text.';
  // Chat nests the grammar (`{type:'grammar', grammar:{syntax, definition}}`); Responses has it flat.
  const grammar = isObject(format.grammar) ? format.grammar : format;
  return `The \`input\` parameter must be text matching this ${str(grammar.syntax) ?? 'grammar'} grammar:\n${str(grammar.definition) ?? ''}`;
}

function encodeTool(tool: Ir.Tool, ctx: Ir.TranslateContext): FunctionDeclaration {
  const name = upstreamToolName(ctx, callerTool(tool));
  if (tool.kind === 'custom') {
    const note = customFormatNote(tool.format);
    return { name, description: tool.description ? `${tool.description}\n\n${note}` : note, parametersJsonSchema: CUSTOM_INPUT_SCHEMA };
  }
  return {
    name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    ...(tool.parameters !== undefined ? { parametersJsonSchema: toGeminiSchema(tool.parameters, 'tool schema', ctx) } : {}),
  };
}

function encodeToolConfig(request: Ir.Request, ctx: Ir.TranslateContext): RequestBody['toolConfig'] {
  if (request.parallelToolCalls === false) warn(ctx, 'parallel_tool_calls false');
  const choice = request.toolChoice;
  const config = (mode: FunctionCallingMode, allowedFunctionNames?: string[]) => ({
    functionCallingConfig: { mode, ...(allowedFunctionNames !== undefined ? { allowedFunctionNames } : {}) },
  });
  switch (choice?.type) {
    case undefined:
      return undefined;
    case 'auto':
      return config('AUTO');
    case 'none':
      return config('NONE');
    case 'required':
      return config('ANY');
    case 'tool': {
      const declared = request.tools.find((t) => t.name === choice.name && t.namespace === choice.namespace);
      return config('ANY', [upstreamToolName(ctx, callerTool({ ...choice, kind: declared?.kind ?? 'function' }))]);
    }
  }
}

function encodeCall(part: Ir.ToolCallPart, ctx: Ir.TranslateContext): NonNullable<Part['functionCall']> {
  const name = upstreamToolName(ctx, callerTool(part));
  // A custom tool's free-form input travels as the one `input` parameter of its function stand-in.
  const args = part.kind === 'custom' ? { input: part.arguments } : argumentsToObject(part.arguments, ctx);
  return { id: part.id, name, args };
}

/** A tool result's `response` object: its text as `output`, or as `error` when the call failed. */
function encodeResult(part: Ir.ToolResultPart, names: ReadonlyMap<string, string>, media: Part[], ctx: Ir.TranslateContext): Part {
  const texts: string[] = [];
  for (const c of part.content) {
    if (c.type === 'text') texts.push(c.text);
    else {
      const wire = c.type === 'image' ? encodeImage(c, ctx) : encodeFile(c, ctx);
      if (wire?.text !== undefined) texts.push(wire.text);
      else if (wire) media.push(wire);
    }
  }
  const name = names.get(part.callId);
  if (name === undefined) warn(ctx, 'tool result without its call');
  const text = texts.join('\n\n');
  return { functionResponse: { id: part.callId, name: name ?? 'unknown', response: part.isError ? { error: text } : { output: text } } };
}

function encodeUser(parts: readonly Ir.UserPart[], names: ReadonlyMap<string, string>, ctx: Ir.TranslateContext): Part[] {
  const results: Part[] = [];
  const media: Part[] = [];
  const rest: Part[] = [];
  for (const p of parts) {
    if (p.type === 'tool_result') results.push(encodeResult(p, names, media, ctx));
    else if (p.type === 'text') {
      if (p.text !== '') rest.push({ text: p.text });
    } else {
      const wire = p.type === 'image' ? encodeImage(p, ctx) : encodeFile(p, ctx);
      if (wire) rest.push(wire);
    }
  }
  // Images and files in tool results follow the results as parts of the same turn, which every Gemini model reads.
  if (media.length > 0) warn(ctx, 'tool result media as user parts');
  return [...results, ...media, ...rest];
}

/** Consecutive turns of one role become one content, as Gemini expects turns to alternate. */
function pushContent(contents: Content[], content: Content): void {
  if (content.parts.length === 0) return;
  const last = contents.at(-1);
  if (last && last.role === content.role) append(last.parts, content.parts);
  else contents.push(content);
}

interface Conversation {
  readonly system: Part[];
  readonly contents: Content[];
}

function encodeConversation(request: Ir.Request, ctx: Ir.TranslateContext): Conversation {
  const system: Part[] = request.system.filter((p) => p.text !== '').map((p) => ({ text: p.text }));
  const names = new Map<string, string>();
  for (const m of request.messages) {
    if (m.role !== 'assistant') continue;
    for (const p of m.content) if (p.type === 'tool_call') names.set(p.id, upstreamToolName(ctx, callerTool(p)));
  }
  const contents: Content[] = [];
  for (const m of request.messages) {
    switch (m.role) {
      case 'system': {
        const parts = m.content.filter((p) => p.text !== '').map((p) => ({ text: p.text }));
        // Before the first turn, part of the system instruction; later, where it was, as user text.
        if (contents.length === 0) append(system, parts);
        else {
          warn(ctx, 'mid-conversation system message as user text');
          pushContent(contents, { role: 'user', parts });
        }
        break;
      }
      case 'user':
        pushContent(contents, { role: 'user', parts: encodeUser(m.content, names, ctx) });
        break;
      case 'assistant':
        pushContent(contents, { role: 'model', parts: encodeModelParts(m.content, 'request', ctx, (p) => encodeCall(p, ctx)) });
        break;
    }
  }
  return { system, contents };
}

function encodeGenerationConfig(request: Ir.Request, ctx: Ir.TranslateContext): GenerationConfig {
  const format = request.responseFormat;
  const thinking = encodeThinking(request.reasoning, ctx);
  return {
    ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topP !== undefined ? { topP: request.topP } : {}),
    ...(request.topK !== undefined ? { topK: request.topK } : {}),
    ...(request.stop !== undefined && request.stop.length > 0 ? { stopSequences: [...request.stop] } : {}),
    ...(format?.type === 'json_object' ? { responseMimeType: 'application/json' } : {}),
    ...(format?.type === 'json_schema'
      ? { responseMimeType: 'application/json', responseJsonSchema: toGeminiSchema(format.schema, 'response schema', ctx) }
      : {}),
    ...(thinking !== undefined ? { thinkingConfig: thinking } : {}),
  };
}

export function encodeRequest(request: Ir.Request, ctx: Ir.TranslateContext): Json {
  const { system, contents } = encodeConversation(request, ctx);
  if (contents.length === 0) throw invalidRequest('Gemini needs at least one user or model turn with content.', 'contents');
  const declarations = request.tools.map((t) => encodeTool(t, ctx));
  const toolConfig = declarations.length > 0 ? encodeToolConfig(request, ctx) : undefined;
  const generationConfig = encodeGenerationConfig(request, ctx);
  if (request.metadata !== undefined && Object.keys(request.metadata).length > 0) warn(ctx, 'metadata');
  const body: RequestBody = {
    contents,
    ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}),
    ...(declarations.length > 0 ? { tools: [{ functionDeclarations: declarations }] } : {}),
    ...(toolConfig !== undefined ? { toolConfig } : {}),
    ...(Object.keys(generationConfig).length > 0 ? { generationConfig } : {}),
  };
  return { ...body };
}
