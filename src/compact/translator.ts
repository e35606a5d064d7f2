/**
 * A compaction on a translated route, as a translator: the compaction body becomes a summary
 * request (summary-request.ts) for the route's own translator, and its answer, back in the
 * Responses shape, becomes the compaction answer (compacted.ts). A compaction is never streamed.
 */
import type { Translator } from '../translate/translator.js';
import { compactedAnswer } from './compacted.js';
import { summaryRequest } from './summary-request.js';

function neverStreamed(): never {
  throw new Error('a compaction is answered in one piece');
}

export function compactingTranslator(translator: Translator): Translator {
  return {
    request: (body, ctx) => translator.request(summaryRequest(body), ctx),
    response: (body, ctx, callerBody) => compactedAnswer(translator.response(body, ctx, summaryRequest(callerBody)), callerBody, ctx),
    stream: neverStreamed,
    responseAsStream: neverStreamed,
  };
}
