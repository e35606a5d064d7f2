/**
 * What the gateway knows about one wire protocol, as one value: a protocol is a folder
 * (`protocols/<id>/`) whose `protocol.ts` exports one of these, plus a line in `registry.ts`.
 * The pipeline, routing, replay and the CLI ask it; none of them names a protocol.
 * @see docs/architecture.md, "Protocols"
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dialect } from '../providers/kind.js';
import type { Codec } from '../translate/types.js';
import type { Json } from './json.js';
import type { StreamEnds } from './stream-ends.js';
import type { StreamWatch } from './stream-watch.js';
import type { ErrorFamily, InboundCall, KeyStyle, Operation, Protocol, RequestInfo, RequestLimits, Usage } from './types.js';

/** A caller-facing endpoint: `path` may hold `{name}` parameters (path-template.ts). */
export interface ProtocolEndpoint {
  readonly method: 'POST';
  readonly path: string;
  readonly operation: Operation;
  /** The endpoint streams its answer whatever the body says (Gemini's `:streamGenerateContent`). */
  readonly stream?: true;
}

/** A protocol's `count_tokens`: the request it counts, and its answer. */
export interface Counting {
  /** The create request a count_tokens body counts, in this protocol's shape (Gemini may wrap it). */
  request(body: Json): Json;
  /** The answer to a count of `tokens` input tokens. */
  answer(tokens: number): Json;
}

/**
 * A provider's own input-token counter in this protocol, as `count_tokens` on a translated route
 * asks it (pipeline/count-tokens.ts): the counter's request for a create request, and its answer read.
 */
export interface Counter {
  /** The counter's request for `create` (this protocol's request as it would be sent), `model` the upstream's. */
  ask(create: Json, model: string): Json;
  /** The count in the counter's answer; undefined when the answer is not one. */
  read(answer: unknown): number | undefined;
}

/** What a protocol that names the model in the path needs to say where a call goes. */
export interface UpstreamCall {
  readonly model: string;
  readonly stream: boolean;
}

/** A request field that needs state the provider keeps, which a translated route cannot give. */
export interface StatefulField {
  readonly field: string;
  readonly set: (value: unknown) => boolean;
  /** What the field needs, for the refusal's message. */
  readonly needs: string;
}

export interface ProtocolModule {
  readonly id: Protocol;
  /** Its name in messages: "Chat Completions". */
  readonly title: string;
  readonly endpoints: readonly ProtocolEndpoint[];
  readonly keyStyle: KeyStyle;
  /** A request header only this protocol's callers send: it picks the error shape before the endpoint is known. */
  readonly marker?: string;
  /** A query parameter only this protocol's callers send (Google's `key`): a marker, as the header is. */
  readonly queryMarker?: string;
  /** Path prefixes only this protocol's callers use (Gemini's `/v1beta/`): they pick the error shape as the marker does. */
  readonly pathPrefixes?: readonly string[];
  /** Checks the headers the protocol requires beyond the key; throws GatewayError. */
  checkHeaders?(headers: IncomingHttpHeaders): void;
  /** Shallow validation, and the request's size against `limits`; throws GatewayError naming the offending field. */
  inspect(call: InboundCall, limits: RequestLimits): RequestInfo;
  /** Usage of a whole (non-streaming) answer. */
  usage(json: unknown): Usage;
  /** A new follower of one stream in this protocol: usage, its end, and the frames that end it with an error. */
  watchStream(): StreamWatch;
  /** The events after which a stream owes nothing more. */
  readonly streamEnds: StreamEnds;
  readonly errorFamily: ErrorFamily;
  /** Decoding to and encoding from the translation IR. */
  readonly codec: Codec;
  /**
   * Where `operation` lives under a provider's base URL (one ending in /v1), as path segments; undefined: not offered.
   * A protocol whose model is in the path (`modelInPath`) answers only with `call`; the query its
   * stream needs (Gemini's `alt=sse`) is the provider kind's to add.
   */
  upstreamPath(operation: Operation, call?: UpstreamCall): readonly string[] | undefined;
  /**
   * The model is named in the path, not the body (Gemini's `models/{model}:generateContent`): a
   * passthrough body is sent without a `model`, and the provider puts the upstream model in its URL.
   */
  readonly modelInPath?: true;
  /** `count_tokens`, for a protocol that offers it. */
  readonly counting?: Counting;
  /**
   * The input-token counter of providers of this protocol, for one whose kind says its upstream has
   * it (`countsInputTokens`). Its call is the `count_tokens` operation, wherever the provider puts it.
   */
  readonly counter?: Counter;
  /** The caller headers sent on to an upstream of this protocol, and what is sent when the caller sent none. */
  readonly upstreamHeaders: { readonly forward: readonly string[]; readonly defaults: Readonly<Record<string, string>> };
  /** The request fields that ask for output tokens, and those that ask for several choices (dotted: `a.b` a key inside `a`). */
  readonly asks: { readonly outputTokens: readonly string[]; readonly choices?: readonly string[] };
  /**
   * The field a key group's output cap is added as when a request names none, by the upstream's
   * dialect (or the caller's own field for a translated request); absent where the protocol
   * requires the field anyway.
   */
  outputCapField?(upstream: Dialect | 'translated'): string;
  /**
   * What only the gateway can read, taken out of a caller's request before it goes to a provider of
   * this protocol as it is (passthrough): the gateway's reasoning seals. Undefined when there is none.
   */
  stripSeals?(raw: Buffer, body: () => Json): { readonly body: Json; readonly dropped: number } | undefined;
  /**
   * Whether a passthrough answer is given the model name the caller asked for when the request went
   * upstream under another (pipeline/relay/answer-model.ts): its clients compare it with their own.
   */
  readonly renamesAnswerModel?: boolean;
  /** Fields a translated route refuses (they need state only the provider keeps), and what to do instead. */
  readonly stateful?: { readonly fields: readonly StatefulField[]; readonly instead: string };
}
