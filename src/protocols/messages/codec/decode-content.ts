/**
 * Anthropic request content blocks → IR parts: user blocks (text, image,
 * document, tool_result, search_result), assistant blocks (text, thinking,
 * redacted_thinking, tool_use) and system text. Server-tool blocks are
 * executed by Anthropic and have no IR form: dropped with a warning.
 * @see README.md, "Translation" › "What maps to what"
 */
import { invalidRequest } from '../../../errors.js';
import { isObject, type Json } from '../../shallow.js';
import { isSeal } from '../../../translate/common/reasoning-seal.js';
import type * as Ir from '../../../translate/ir.js';
import { list, objects, readCache, str, warn, warnDroppedBlock } from './read.js';

type Media = Ir.TextPart | Ir.ImagePart | Ir.FilePart;

/** `string | blocks` content as blocks (a string is one text block). */
const blocksOf = (content: unknown): Json[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : objects(content);

export function decodeText(block: Json): Ir.TextPart {
  // User-side `citations` are answers' provenance, meaningless to another provider: not carried.
  return { type: 'text', text: str(block.text) ?? '', ...readCache(block) };
}

/** System text: a string or text blocks (with `cache_control`); empty strings say nothing. */
/**
 * Claude Code opens its system prompt with a billing line for Anthropic
 * (`x-anthropic-billing-header: cc_version=…;`). It means nothing to another provider, and
 * its per-version text would sit at the very start of the prompt, where it defeats OpenAI's
 * prefix caching across sessions, so it stays behind when the upstream is not Anthropic.
 */
const ANTHROPIC_BILLING_LINE = /^x-anthropic-billing-header:/;

export function decodeSystem(content: unknown, ctx: Ir.TranslateContext): Ir.TextPart[] {
  const parts: Ir.TextPart[] = [];
  for (const block of blocksOf(content)) {
    if (block.type !== 'text') warn(ctx, `${String(block.type)} block in system`);
    else if (ctx.upstream === 'messages' || !ANTHROPIC_BILLING_LINE.test(str(block.text) ?? '')) parts.push(decodeText(block));
  }
  return parts.filter((p) => p.text !== '' || p.cacheControl !== undefined);
}

function decodeImage(block: Json, ctx: Ir.TranslateContext): Ir.ImagePart | undefined {
  const source = isObject(block.source) ? block.source : {};
  let irSource: Ir.ImageSource | undefined;
  if (source.type === 'base64') irSource = { kind: 'base64', mediaType: str(source.media_type) ?? 'image/png', data: str(source.data) ?? '' };
  else if (source.type === 'url') irSource = { kind: 'url', url: str(source.url) ?? '' };
  else if (source.type === 'file') irSource = { kind: 'file', fileId: str(source.file_id) ?? '' };
  if (!irSource) {
    warn(ctx, `image source ${String(source.type)}`);
    return undefined;
  }
  return { type: 'image', source: irSource, ...readCache(block) };
}

/** A `content` document source (text and image blocks) has no IR form; its text is kept as a text document. */
function contentSourceText(content: unknown, ctx: Ir.TranslateContext): string {
  const blocks = blocksOf(content);
  if (blocks.some((b) => b.type !== 'text')) warn(ctx, 'non-text document content');
  return blocks
    .filter((b) => b.type === 'text')
    .map((b) => str(b.text) ?? '')
    .join('\n\n');
}

function decodeDocument(block: Json, ctx: Ir.TranslateContext): Ir.FilePart | undefined {
  const source = isObject(block.source) ? block.source : {};
  const title = str(block.title);
  const base = { type: 'file' as const, ...(title !== undefined ? { filename: title } : {}), ...readCache(block) };
  if (isObject(block.citations) && block.citations.enabled === true) warn(ctx, 'document citations');
  if (str(block.context)) warn(ctx, 'document context');
  switch (source.type) {
    case 'base64':
      return { ...base, mediaType: str(source.media_type) ?? 'application/pdf', data: str(source.data) ?? '' };
    case 'text':
      return { ...base, mediaType: str(source.media_type) ?? 'text/plain', text: str(source.data) ?? '' };
    case 'content':
      return { ...base, mediaType: 'text/plain', text: contentSourceText(source.content, ctx) };
    case 'url':
      // A URL document source is a PDF by definition (`URLPDFSource`).
      return { ...base, mediaType: 'application/pdf', url: str(source.url) ?? '' };
    case 'file':
      return { ...base, fileId: str(source.file_id) ?? '' };
    default:
      warn(ctx, `document source ${String(source.type)}`);
      return undefined;
  }
}

/** A search result has no IR form: its title, source and text become one text part. */
function searchResultText(block: Json, ctx: Ir.TranslateContext): Ir.TextPart {
  warn(ctx, 'search_result as text');
  const body = objects(block.content)
    .map((b) => str(b.text) ?? '')
    .join('\n\n');
  const head = [str(block.title), str(block.source)].filter((s) => s !== undefined && s !== '').join('\n');
  return { type: 'text', text: head ? `${head}\n\n${body}` : body, ...readCache(block) };
}

/** Blocks allowed inside a tool_result and in user turns besides tool results. */
function decodeMedia(block: Json, ctx: Ir.TranslateContext): Media | undefined {
  switch (block.type) {
    case 'text':
      return decodeText(block);
    case 'image':
      return decodeImage(block, ctx);
    case 'document':
      return decodeDocument(block, ctx);
    case 'search_result':
      return searchResultText(block, ctx);
    case 'tool_reference':
      // Tool search's answer: the named deferred tool is offered from this turn on (see `decodeTools`),
      // so the name alone tells the model what the search found.
      return { type: 'text', text: str(block.tool_name) ?? '', ...readCache(block) };
    default:
      warnDroppedBlock(block, ctx);
      return undefined;
  }
}

function decodeToolResult(block: Json, ctx: Ir.TranslateContext): Ir.ToolResultPart {
  const content: Media[] = [];
  for (const b of blocksOf(block.content)) {
    const part = decodeMedia(b, ctx);
    if (part) content.push(part);
  }
  return {
    type: 'tool_result',
    callId: str(block.tool_use_id) ?? '',
    content,
    ...(typeof block.is_error === 'boolean' ? { isError: block.is_error } : {}),
    ...readCache(block),
  };
}

export function decodeUserContent(content: unknown, ctx: Ir.TranslateContext): Ir.UserPart[] {
  const parts: Ir.UserPart[] = [];
  for (const block of blocksOf(content)) {
    const part = block.type === 'tool_result' ? decodeToolResult(block, ctx) : decodeMedia(block, ctx);
    if (part) parts.push(part);
  }
  return parts;
}

/**
 * A thinking block: Anthropic's signature kept to replay; the gateway's own seal opened back into
 * what the upstream that reasoned needs (its encrypted reasoning, item id, details). A seal that
 * does not open (forged, altered, another install's) is dropped, never trusted.
 */
function decodeThinking(block: Json, ctx: Ir.TranslateContext): Ir.ReasoningPart | undefined {
  const text = str(block.thinking) ?? '';
  const signature = typeof block.signature === 'string' ? block.signature : undefined;
  if (signature === undefined || !isSeal(signature)) return { type: 'reasoning', text, ...(signature !== undefined ? { signature } : {}) };
  const carried = ctx.seal?.open(signature, text);
  if (carried === undefined) {
    warn(ctx, 'unverified reasoning');
    return undefined;
  }
  return {
    type: 'reasoning',
    ...(carried.summary ? { text: '', summary: [text] } : { text }),
    ...(carried.encrypted !== undefined ? { encrypted: carried.encrypted } : {}),
    ...(carried.id !== undefined ? { id: carried.id } : {}),
    ...(carried.details !== undefined ? { details: carried.details } : {}),
  };
}

function decodeAssistantBlock(block: Json, ctx: Ir.TranslateContext): Ir.AssistantPart | undefined {
  switch (block.type) {
    case 'text':
      return decodeText(block);
    case 'thinking':
      return decodeThinking(block, ctx);
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redacted: str(block.data) ?? '' };
    case 'tool_use':
      return {
        type: 'tool_call',
        id: str(block.id) ?? '',
        name: str(block.name) ?? '',
        // Anthropic sends an object; the IR carries JSON text.
        arguments: JSON.stringify(block.input ?? {}),
        kind: 'function',
        ...readCache(block),
      };
    case 'document':
      warn(ctx, 'document in assistant turn');
      return undefined;
    default:
      warnDroppedBlock(block, ctx);
      return undefined;
  }
}

export function decodeAssistantContent(content: unknown, ctx: Ir.TranslateContext): Ir.AssistantPart[] {
  const parts: Ir.AssistantPart[] = [];
  for (const block of blocksOf(content)) {
    if (block.type === 'text' && block.text === '' && block.cache_control === undefined) continue;
    const part = decodeAssistantBlock(block, ctx);
    if (part) parts.push(part);
  }
  return parts;
}

export function decodeMessage(m: Json, i: number, ctx: Ir.TranslateContext): Ir.Message {
  switch (m.role) {
    case 'user':
      return { role: 'user', content: decodeUserContent(m.content, ctx) };
    case 'assistant':
      return { role: 'assistant', content: decodeAssistantContent(m.content, ctx) };
    case 'system':
      // Claude Code adds a per-message `output_config` here (beta per-turn-control); no IR form, and harmless to lose.
      return { role: 'system', content: decodeSystem(m.content, ctx) };
    default:
      throw invalidRequest(`\`messages[${i}].role\` must be 'user', 'assistant' or 'system'.`, `messages[${i}].role`);
  }
}

/** Every message, checked to be an object by the protocol layer; `list` only guards direct codec use. */
export const decodeMessages = (messages: unknown, ctx: Ir.TranslateContext): Ir.Message[] =>
  list(messages).map((m, i) => {
    if (!isObject(m)) throw invalidRequest(`\`messages[${i}]\` must be an object.`, `messages[${i}]`);
    return decodeMessage(m, i, ctx);
  });
