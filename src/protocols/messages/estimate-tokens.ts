/**
 * A local token estimate for `count_tokens` when the model's provider cannot
 * count (it does not speak Messages). Roughly four characters a token for text,
 * tool definitions and tool calls; a fixed cost per image (Anthropic bills about
 * width × height / 750, ~1,600 for a typical screenshot) and per PDF page-sized
 * chunk of a document. It must be fast: Claude Code sends dozens at once.
 */
import { isObject } from '../shallow.js';

const CHARS_PER_TOKEN = 4;
const IMAGE_TOKENS = 1600;
/** A PDF page is ~1,500–3,000 tokens and ~50–100 KB of base64; one token per ~40 base64 characters. */
const BASE64_CHARS_PER_TOKEN = 40;

/**
 * About the length of `JSON.stringify(value)` (escapes not counted), without building the string,
 * which for Claude Code's tool definitions (most of the count) would be a large string per request.
 * Bodies are depth-checked before they get here, so the recursion is bounded.
 */
export function jsonLength(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
    case 'boolean':
      return String(value).length;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let n = value.length > 0 ? value.length + 1 : 2;
        for (const item of value) n += jsonLength(item);
        return n;
      }
      let n = 1;
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item !== undefined) n += key.length + 4 + jsonLength(item);
      }
      return n === 1 ? 2 : n;
    }
    default:
      return 0;
  }
}

function countBlock(block: unknown): number {
  if (typeof block === 'string') return block.length;
  if (!isObject(block)) return 0;
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text.length : 0;
    case 'thinking':
      return typeof block.thinking === 'string' ? block.thinking.length : 0;
    case 'image':
      return IMAGE_TOKENS * CHARS_PER_TOKEN;
    case 'document': {
      const source = isObject(block.source) ? block.source : {};
      if (typeof source.data === 'string') {
        return source.type === 'text' ? source.data.length : (source.data.length / BASE64_CHARS_PER_TOKEN) * CHARS_PER_TOKEN;
      }
      return IMAGE_TOKENS * CHARS_PER_TOKEN;
    }
    case 'tool_use':
      return jsonLength(block.input ?? {}) + (typeof block.name === 'string' ? block.name.length : 0);
    case 'tool_result':
      return countContent(block.content);
    default:
      return jsonLength(block);
  }
}

function countContent(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const block of content) n += countBlock(block);
  return n;
}

export function estimateInputTokens(body: Readonly<Record<string, unknown>>): number {
  let chars = countContent(body.system);
  if (Array.isArray(body.messages)) {
    for (const m of body.messages) if (isObject(m)) chars += countContent(m.content) + 4;
  }
  if (Array.isArray(body.tools)) {
    for (const tool of body.tools) chars += jsonLength(tool);
  }
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN));
}
