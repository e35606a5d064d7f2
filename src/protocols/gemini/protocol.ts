/**
 * Google Gemini (the Gemini API's `generateContent`): `POST /v1beta/models/{model}:generateContent`,
 * `:streamGenerateContent` (server-sent events, `?alt=sse`) and `:countTokens`, the same under `/v1/`
 * (the SDKs call either); keys in `x-goog-api-key` or the `key` query parameter. The model is the
 * path's, and whether the answer streams is the endpoint's: the body names neither.
 * @see docs/protocols.md, "Gemini"
 */
import { invalidRequest } from '../../errors.js';
import type { ProtocolEndpoint, ProtocolModule } from '../protocol.js';
import { STREAM_ENDS } from '../stream-ends.js';
import type { Operation } from '../types.js';
import { geminiCodec } from './codec/codec.js';
import { geminiCounter } from './counter.js';
import { spellings } from './fields.js';
import { stripSeals } from './strip-seals.js';
import { createGeminiWatch, geminiUsage } from './usage.js';
import { countedRequest, inspectGeminiRequest } from './validate.js';

/** The API versions callers name: the SDKs' default is `v1beta`; `v1` is the stable one. */
const VERSIONS = ['v1beta', 'v1'] as const;

/** Each operation's method, after the model: `models/{model}:generateContent`. */
const METHODS: readonly { readonly method: string; readonly operation: Operation; readonly stream?: true }[] = [
  { method: 'generateContent', operation: 'create' },
  { method: 'streamGenerateContent', operation: 'create', stream: true },
  { method: 'countTokens', operation: 'count_tokens' },
];

const endpoints: ProtocolEndpoint[] = VERSIONS.flatMap((version) =>
  METHODS.map(({ method, operation, stream }) => ({
    method: 'POST' as const,
    path: `/${version}/models/{model}:${method}`,
    operation,
    ...(stream ? { stream } : {}),
  })),
);

/** The method of an operation upstream; undefined: Gemini has none (compaction). */
function methodOf(operation: Operation, stream: boolean): string | undefined {
  switch (operation) {
    case 'create':
      return stream ? 'streamGenerateContent' : 'generateContent';
    case 'count_tokens':
      return 'countTokens';
    case 'compact':
      return undefined;
  }
}

/**
 * Google's stream is server-sent events only when asked for with `alt=sse`; without it the
 * endpoint answers one JSON array, which the gateway does not write. A caller that did not ask
 * for events is told so rather than sent them.
 */
function requireSse(url: string | undefined): void {
  const q = url?.indexOf('?') ?? -1;
  const alt = q === -1 ? null : new URLSearchParams(url!.slice(q + 1)).get('alt');
  if (alt !== 'sse') {
    throw invalidRequest('streamGenerateContent is served as server-sent events only: add `alt=sse` to the query (the Google SDKs do).', 'alt');
  }
}

export const gemini: ProtocolModule = {
  id: 'gemini',
  title: 'Gemini',
  endpoints,
  keyStyle: 'google',
  marker: 'x-goog-api-key',
  queryMarker: 'key',
  // No other API the gateway speaks has a `v1beta`: a Gemini caller's mistyped method still reads Google's errors.
  pathPrefixes: ['/v1beta/'],
  inspect: (call, limits) => {
    const info = inspectGeminiRequest(call, limits);
    if (info.stream) requireSse(call.url);
    return info;
  },
  usage: geminiUsage,
  watchStream: createGeminiWatch,
  streamEnds: STREAM_ENDS.gemini,
  errorFamily: 'google',
  codec: geminiCodec,
  upstreamPath: (operation, call) => {
    const method = methodOf(operation, call?.stream === true);
    return method === undefined || call === undefined ? undefined : ['models', `${call.model}:${method}`];
  },
  modelInPath: true,
  counting: {
    request: countedRequest,
    answer: (tokens) => ({ totalTokens: tokens }),
  },
  counter: geminiCounter,
  // `x-goog-api-client` names the SDK and its version, as `user-agent` does; Google reads it for its own statistics.
  upstreamHeaders: { forward: ['x-goog-api-client'], defaults: {} },
  asks: { outputTokens: spellings('generationConfig.maxOutputTokens'), choices: spellings('generationConfig.candidateCount') },
  outputCapField: () => 'generationConfig.maxOutputTokens',
  stripSeals,
};
