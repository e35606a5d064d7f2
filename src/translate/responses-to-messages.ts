/**
 * Codex (Responses) on Claude. Namespace and custom tools are mapped as for Chat; Claude's signed thinking
 * travels back to Codex inside the reasoning item's encrypted_content, so a tool loop replays it to Claude
 * unchanged; hosted tools are dropped and listed.
 * @see README.md, "Translation"
 */
import { messagesCodec } from './messages/codec.js';
import { responsesCodec } from './responses/codec.js';
import { createTranslator, type Translator } from './translator.js';

export const responsesToMessages: Translator = createTranslator(responsesCodec, messagesCodec);
