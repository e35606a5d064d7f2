/**
 * IR response → a complete Responses answer for the caller.
 * @see README.md, "Translation" › "What maps to what"
 */
import type { Json } from '../../shallow.js';
import type { Response, TranslateContext } from '../../../translate/ir.js';
import { compactionItem, isCompactionRequest } from './compaction.js';
import { encodeOutput } from './encode-output.js';
import { envelope, responseId } from './envelope.js';
import { encodeUsage, statusOf } from './status.js';

export function encodeResponse(response: Response, ctx: TranslateContext, callerBody: Json): Json {
  const { status, incomplete_details } = statusOf(response.stopReason);
  return envelope(ctx, callerBody, {
    id: responseId(response.id, ctx),
    created: response.created,
    status,
    incompleteDetails: incomplete_details,
    // A compaction is answered by its one item only (compaction.ts).
    output: isCompactionRequest(callerBody) ? [compactionItem(textOf(response), ctx)] : encodeOutput(response.content, ctx),
    usage: encodeUsage(response.usage),
  });
}

/** The answer's text: what a compaction seals as its summary. */
const textOf = (response: Response): string =>
  response.content
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('');
