/** The echo's token estimates: about four bytes or characters per token, never a tokenizer. */
import type { EchoReply } from './reply.js';

/** About four bytes per token, over the body as JSON (also the count_tokens answer). */
export const estimateInputTokens = (body: unknown): number =>
  Math.ceil(Buffer.byteLength(JSON.stringify(body) ?? '', 'utf8') / 4);

/** About four characters per token of what is sent back (text, or the arguments JSON); at least 1. */
export const estimateOutputTokens = (reply: EchoReply): number =>
  Math.max(1, Math.ceil((reply.kind === 'text' ? reply.text : reply.arguments).length / 4));
