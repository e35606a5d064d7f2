/**
 * An OpenAI SDK app (Chat) on Claude. Lossy: n > 1, logprobs, penalties and logit_bias have no Anthropic form
 * (dropped and listed); temperature is clamped to Anthropic's 0..1; reasoning from Claude comes back as
 * reasoning_content.
 * @see README.md, "Translation"
 */
import { messagesCodec } from './messages/codec.js';
import { chatCodec } from './chat/codec.js';
import { createTranslator, type Translator } from './translator.js';

export const chatToMessages: Translator = createTranslator(chatCodec, messagesCodec);
