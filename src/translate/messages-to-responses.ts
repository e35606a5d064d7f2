/**
 * Claude Code (Messages) on an OpenAI model through the Responses API. Lossy: Anthropic server tools and
 * cache_control have no Responses form (dropped and listed); stop sequences do not exist in Responses (dropped
 * and listed).
 * @see README.md, "Translation"
 */
import { responsesCodec } from './responses/codec.js';
import { messagesCodec } from './messages/codec.js';
import { createTranslator, type Translator } from './translator.js';

export const messagesToResponses: Translator = createTranslator(messagesCodec, responsesCodec);
