/**
 * A local token estimate for `count_tokens` when the model's provider cannot count (it does not
 * speak Messages, and has no counter of its own). Prose and code, and JSON (tool definitions,
 * tool calls), run at different lengths per token, so each has its ratio, set against the o200k
 * tokenizer on the client fixtures (estimate-tokens.test.ts holds the estimate to a band of that
 * count, a little above rather than below: a low count makes Claude Code compact too late). A
 * fixed cost per message (its role and framing), per image (Anthropic bills about
 * width × height / 750, ~1,600 for a typical screenshot) and per PDF page-sized chunk of a
 * document. It must be fast: Claude Code sends dozens at once.
 */
import { isObject } from '../shallow.js';

/** Prose and code: o200k runs at about 3.5–4.5 characters a token; the low end keeps the count from falling short. */
const TEXT_CHARS_PER_TOKEN = 3.6;
/** JSON (tool schemas, tool call arguments): longer runs of punctuation and keys, about 4.3 characters a token. */
const JSON_CHARS_PER_TOKEN = 4.2;
/** A message's role and the framing around it. */
const MESSAGE_TOKENS = 3;
const IMAGE_TOKENS = 1600;
/** A PDF page is ~1,500–3,000 tokens and ~50–100 KB of base64; one token per ~40 base64 characters. */
const BASE64_CHARS_PER_TOKEN = 40;

/** What a request holds, by kind, as it is counted. */
interface Tally {
  text: number;
  json: number;
  tokens: number;
}

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

function countBlock(block: unknown, t: Tally): void {
  if (typeof block === 'string') {
    t.text += block.length;
    return;
  }
  if (!isObject(block)) return;
  switch (block.type) {
    case 'text':
      if (typeof block.text === 'string') t.text += block.text.length;
      return;
    case 'thinking':
      if (typeof block.thinking === 'string') t.text += block.thinking.length;
      return;
    case 'image':
      t.tokens += IMAGE_TOKENS;
      return;
    case 'document': {
      const source = isObject(block.source) ? block.source : {};
      if (typeof source.data !== 'string') t.tokens += IMAGE_TOKENS;
      else if (source.type === 'text') t.text += source.data.length;
      else t.tokens += source.data.length / BASE64_CHARS_PER_TOKEN;
      return;
    }
    case 'tool_use':
      t.json += jsonLength(block.input ?? {});
      if (typeof block.name === 'string') t.text += block.name.length;
      return;
    case 'tool_result':
      countContent(block.content, t);
      return;
    default:
      t.json += jsonLength(block);
  }
}

function countContent(content: unknown, t: Tally): void {
  if (typeof content === 'string') t.text += content.length;
  else if (Array.isArray(content)) for (const block of content) countBlock(block, t);
}

export function estimateInputTokens(body: Readonly<Record<string, unknown>>): number {
  const t: Tally = { text: 0, json: 0, tokens: 0 };
  countContent(body.system, t);
  if (Array.isArray(body.messages)) {
    for (const m of body.messages) {
      if (!isObject(m)) continue;
      countContent(m.content, t);
      t.tokens += MESSAGE_TOKENS;
    }
  }
  if (Array.isArray(body.tools)) {
    for (const tool of body.tools) t.json += jsonLength(tool);
  }
  return Math.max(1, Math.ceil(t.text / TEXT_CHARS_PER_TOKEN + t.json / JSON_CHARS_PER_TOKEN + t.tokens));
}
