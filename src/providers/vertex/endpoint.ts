/**
 * Where Vertex AI's calls go. Every publisher's models live under one path,
 * `/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}:{method}`:
 * Anthropic's Claude through `rawPredict` and `streamRawPredict` (the Messages body as it is),
 * Google's Gemini through `generateContent` and `streamGenerateContent`. A publisher is one entry
 * of `PUBLISHER_METHODS`, so another fits beside Anthropic's without touching the rest.
 */
import { assertNever } from '../../assert-never.js';
import type { Operation } from '../../protocols/types.js';
import { urlUnder } from '../url.js';

/** The region written in the config: a Google Cloud location (`us-east5`), a multi-region (`us`, `eu`) or `global`. */
export const REGION = /^[a-z][a-z0-9-]*[a-z0-9]$/;

/**
 * A Google Cloud project id (6 to 30 lower-case letters, digits and hyphens) or a domain-scoped
 * one (`example.com:my-project`); also the project number.
 */
export const PROJECT = /^(?:[a-z0-9][a-z0-9.-]*[a-z0-9]:)?[a-z0-9][a-z0-9-]{4,28}[a-z0-9]$/;

/** Vertex AI's endpoint for a region: the global one, a multi-region's, or the region's own. */
export function regionBaseUrl(region: string): string {
  switch (region) {
    case 'global':
      return 'https://aiplatform.googleapis.com';
    // The multi-regions are served from regional endpoints of their own.
    case 'us':
    case 'eu':
      return `https://aiplatform.${region}.rep.googleapis.com`;
    default:
      return `https://${region}-aiplatform.googleapis.com`;
  }
}

/** What a publisher's models are called with, per operation and stream flag; the model named as the path asks. */
interface PublisherMethods {
  /** The method of a create call, streamed or not. */
  create(stream: boolean): string;
  /**
   * Where a count goes: the model to name in the path (Anthropic counts at a fixed `count-tokens`
   * model, with the real one in the body) and the method; undefined for a publisher with no counter.
   */
  count?(model: string): { readonly model: string; readonly method: string };
}

export const PUBLISHER_METHODS = {
  anthropic: {
    create: (stream) => (stream ? 'streamRawPredict' : 'rawPredict'),
    count: () => ({ model: 'count-tokens', method: 'rawPredict' }),
  },
} as const satisfies Record<string, PublisherMethods>;

export type Publisher = keyof typeof PUBLISHER_METHODS;

/** A Vertex model id: `claude-sonnet-4-5@20250929`, `gemini-2.5-pro`. Nothing else is sent, so a name cannot reach another method. */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:@[A-Za-z0-9._-]+)?$/;

export interface ModelCall {
  readonly publisher: Publisher;
  readonly operation: Operation;
  readonly model: string;
  readonly stream: boolean;
}

/**
 * The URL of one call. The model is one path segment, a Vertex model id only, and the `:method` is
 * added after it, so a model name can add neither a segment, a method of its own, nor a query.
 */
export function modelCallUrl(base: string, project: string, region: string, call: ModelCall): URL {
  if (!MODEL_ID.test(call.model)) throw new RangeError(`"${call.model}" is not a Vertex AI model id`);
  const methods: PublisherMethods = PUBLISHER_METHODS[call.publisher];
  const { model, method } = callTarget(methods, call);
  const url = urlUnder(base, 'v1', 'projects', project, 'locations', region, 'publishers', call.publisher, 'models', model);
  // The version after `@` is written as Vertex's own clients write it, unencoded: `@` is a plain path character.
  url.pathname = `${url.pathname.replaceAll('%40', '@')}:${method}`;
  return url;
}

function callTarget(methods: PublisherMethods, call: ModelCall): { readonly model: string; readonly method: string } {
  switch (call.operation) {
    case 'create':
      return { model: call.model, method: methods.create(call.stream) };
    case 'count_tokens': {
      const count = methods.count?.(call.model);
      if (count === undefined) throw new RangeError(`the ${call.publisher} models on Vertex AI have no token counter`);
      return count;
    }
    case 'compact':
      // Routing sends compaction to a protocol that offers it; Messages does not, so it never reaches here.
      throw new RangeError('Vertex AI has no compaction call');
    default:
      return assertNever(call.operation);
  }
}
