/**
 * Gemini's own input-token counter, `models/{model}:countTokens`, as a translated count asks it. The
 * request as it would be sent goes whole in `generateContentRequest`: `contents` alone would leave
 * the system instruction and the tools uncounted. That wrapped request names its model, as a
 * resource (`models/{model}`), though the path names it too; Google refuses it without one.
 * @see node_modules/@google/genai/dist/genai.d.ts (`CountTokensResponse`)
 */
import type { Counter } from '../protocol.js';
import { field } from './fields.js';

const RESOURCE = 'models/';

export const geminiCounter: Counter = {
  ask: (create, model) => ({
    generateContentRequest: { ...create, model: model.startsWith(RESOURCE) ? model : `${RESOURCE}${model}` },
  }),
  read: (answer) => {
    const n = field(answer, 'totalTokens');
    return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
  },
};
