/** The inbound/outbound wire protocols, by their short names. */
export const PROTOCOLS = ['responses', 'chat', 'messages', 'gemini'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** What a request may use, and what a model or key group may allow. */
export const FEATURES = ['tools', 'images', 'streaming', 'reasoning'] as const;
export type Feature = (typeof FEATURES)[number];

/** The error-body family a protocol renders errors in. */
export type ErrorFamily = 'openai' | 'anthropic' | 'google';

/**
 * What a request asks of a model: a response, (Messages) a count of its input tokens, or
 * (Responses) a compaction of a conversation into the items that replace it.
 */
export type Operation = 'create' | 'count_tokens' | 'compact';

/**
 * How a protocol's callers present their key: `Authorization: Bearer`; Anthropic's `x-api-key` first,
 * then Bearer; or Google's `x-goog-api-key` header, else its `key` query parameter, then Bearer.
 */
export type KeyStyle = 'bearer' | 'anthropic' | 'google';

/** Values taken from an endpoint's path template (`{model}` and the like); empty for a literal path. */
export type PathParams = Readonly<Record<string, string>>;

/** A call to a model as it arrived: what inspection reads. */
export interface InboundCall {
  readonly operation: Operation;
  /** The endpoint itself streams (Gemini's `:streamGenerateContent`): the body has no say. Absent: it does not. */
  readonly stream?: boolean;
  /** The request's URL, its query included (Gemini's `alt=sse`). */
  readonly url?: string | undefined;
  /** The parsed body. */
  readonly body: unknown;
  readonly params: PathParams;
}

/** Token counts as reported by the provider, normalised for the log. */
export interface Usage {
  /** All input tokens, cached ones included. */
  inputTokens?: number;
  outputTokens?: number;
  /** Input tokens read from the prompt cache (a part of `inputTokens`). */
  cachedTokens?: number;
  /** Input tokens written to the prompt cache (a part of `inputTokens`), when the provider says. */
  cacheWriteTokens?: number;
  /** The part of `cacheWriteTokens` written to last an hour (Anthropic's longer cache lifetime, priced apart). */
  cacheWrite1hTokens?: number;
}

/** What the gateway reads from a request before routing it. */
export interface RequestInfo {
  readonly model: string;
  readonly stream: boolean;
  readonly features: readonly Feature[];
}

/** How much one request may hold (`server.maxTools` and its siblings), checked during validation. */
export interface RequestLimits {
  readonly maxTools: number;
  readonly maxMessages: number;
  readonly maxContentBlocks: number;
}
