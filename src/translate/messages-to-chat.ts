/**
 * Claude Code (Messages) on a Chat Completions model: Ollama, vLLM, LM Studio, OpenRouter, DeepSeek. Lossy:
 * thinking signatures cannot be replayed to a Chat upstream (dropped; compatible servers get the text as
 * reasoning_content), Anthropic server tools and cache_control have no Chat form (dropped and listed).
 * @see README.md, "Translation"
 */
import { chatCodec } from './chat/codec.js';
import { messagesCodec } from './messages/codec.js';
import { createTranslator, type Translator } from './translator.js';

export const messagesToChat: Translator = createTranslator(messagesCodec, chatCodec);
