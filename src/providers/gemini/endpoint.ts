/**
 * Where the Gemini API's calls go: `{base}/models/{model}:{method}`, the method
 * `generateContent`, `streamGenerateContent` (with `alt=sse`, so that the answer comes as
 * server-sent events rather than one JSON array) or `countTokens`. The model is the path's one
 * segment and the method is added after it, so a model name can add neither a segment, a method of
 * its own, nor a query.
 */
import { assertNever } from '../../assert-never.js';
import type { Operation } from '../../protocols/types.js';
import { urlUnder } from '../url.js';

/** Google's public endpoint, its version included, as the SDKs' `baseUrl` plus `apiVersion`. */
export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

/**
 * A Gemini model id (`gemini-3-pro-preview`, `gemini-2.5-flash-001`), with or without the
 * resource prefix `models/` Google's own lists and SDKs write. Nothing else is sent.
 */
const MODEL_ID = /^(?:models\/)?([A-Za-z0-9][A-Za-z0-9._-]*)$/;

export interface GeminiCall {
  readonly operation: Operation;
  readonly model: string;
  readonly stream: boolean;
}

/** The URL of one call; a RangeError for a model name that is not a Gemini model id. */
export function geminiCallUrl(base: string, call: GeminiCall): URL {
  const id = MODEL_ID.exec(call.model)?.[1];
  if (id === undefined) throw new RangeError(`"${call.model}" is not a Gemini model id`);
  const url = urlUnder(base, 'models', id);
  url.pathname = `${url.pathname}:${method(call)}`;
  if (call.operation === 'create' && call.stream) url.search = '?alt=sse';
  return url;
}

function method(call: GeminiCall): string {
  switch (call.operation) {
    case 'create':
      return call.stream ? 'streamGenerateContent' : 'generateContent';
    case 'count_tokens':
      return 'countTokens';
    case 'compact':
      // Routing sends compaction only to a protocol that offers it; Gemini's does not.
      throw new RangeError('the Gemini API has no compaction call');
    default:
      return assertNever(call.operation);
  }
}

/** The model list, as `check --probe` asks for it. */
export const modelsUrl = (base: string): URL => urlUnder(base, 'models');
