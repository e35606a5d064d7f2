/**
 * Where Vertex AI's calls go. Every publisher's models live under one path,
 * `/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}:{method}`:
 * Anthropic's Claude through `rawPredict` and `streamRawPredict` (the Messages body in Vertex's
 * envelope), Google's Gemini through `generateContent` and `streamGenerateContent?alt=sse` (Gemini's
 * own body), each with its counter. Which publisher a call goes to follows the protocol it is made
 * in (`publisherOf`). A publisher is one entry
 * of `PUBLISHER_METHODS`, so another fits beside Anthropic's without touching the rest.
 */
import { assertNever } from '../../assert-never.js';
import type { Operation, Protocol } from '../../protocols/types.js';
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
  /** The query a streamed create call adds (Gemini's `alt=sse`: server-sent events rather than one JSON array). */
  readonly streamQuery?: Readonly<Record<string, string>>;
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
  google: {
    create: (stream) => (stream ? 'streamGenerateContent' : 'generateContent'),
    streamQuery: { alt: 'sse' },
    count: (model) => ({ model, method: 'countTokens' }),
  },
} as const satisfies Record<string, PublisherMethods>;

export type Publisher = keyof typeof PUBLISHER_METHODS;

/** The publisher whose models are called in `protocol`: Messages is Anthropic's Claude, Gemini's protocol Google's Gemini. */
export function publisherOf(protocol: Protocol): Publisher {
  switch (protocol) {
    case 'messages':
      return 'anthropic';
    case 'gemini':
      return 'google';
    case 'responses':
    case 'chat':
      throw new RangeError(`Vertex AI's publisher models are not called in ${protocol}`);
    default:
      return assertNever(protocol);
  }
}

/** Google's own models are Gemini's; every other publisher model the gateway calls is Anthropic's Claude. */
const GOOGLE_MODEL = /^gemini-/i;

/** The protocol a Vertex model is called in, from its id. */
export const vertexModelProtocol = (model: string): Protocol => (GOOGLE_MODEL.test(model) ? 'gemini' : 'messages');

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
  if (call.stream && call.operation === 'create') for (const [name, value] of Object.entries(methods.streamQuery ?? {})) url.searchParams.set(name, value);
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
