/**
 * Codex (Responses) on a Chat-only model (Ollama, vLLM, ...). Namespace tools are flattened (ns__name) and
 * custom tools become one-string-parameter functions, both mapped back on the way out; hosted tools (web_search,
 * ...) are dropped and listed; reasoning items cannot be replayed to Chat.
 * @see README.md, "Translation"
 */
import { chatCodec } from './chat/codec.js';
import { responsesCodec } from './responses/codec.js';
import { createTranslator, type Translator } from './translator.js';

export const responsesToChat: Translator = createTranslator(responsesCodec, chatCodec);
