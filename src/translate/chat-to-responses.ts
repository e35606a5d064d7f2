/**
 * A Chat caller on a provider that only serves the Responses API. Lossy: stop sequences (Responses has none) and
 * n > 1 (dropped and listed).
 * @see README.md, "Translation"
 */
import { responsesCodec } from './responses/codec.js';
import { chatCodec } from './chat/codec.js';
import { createTranslator, type Translator } from './translator.js';

export const chatToResponses: Translator = createTranslator(chatCodec, responsesCodec);
