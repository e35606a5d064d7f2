/**
 * What a provider kind is: everything the gateway knows about one `type` of provider, in its
 * own folder (`providers/<type>/kind.ts`) and registered once in `kinds.ts`. The config schema,
 * its rules and defaults, the JSON Schema, `check`, the banner and `createProviders` all read
 * the kind from there, so a new kind touches no other file.
 */
import type { z } from '../config/zod.js';
import type { WrittenProviderOf } from '../config/provider-fields.js';
import type { ProviderConfig } from '../config/types.js';
import type { Operation, Protocol } from '../protocols/types.js';
import type { HttpProviderDeps } from './http.js';
import type { Provider } from './types.js';

/** What a kind that wraps its protocol's body (Bedrock, Vertex) is given to wrap. */
export interface EnvelopeCall {
  readonly protocol: Protocol;
  readonly operation: Operation;
  /** The body as the vendor's own API would take it, `model` the upstream's. Read-only. */
  readonly json: Readonly<Record<string, unknown>>;
  /** The caller headers going upstream; the kind may take some into the body (`anthropic-beta`). */
  readonly headers: Readonly<Record<string, string>>;
}

/** The wrapped request. */
export interface Enveloped {
  readonly json: Record<string, unknown>;
  readonly headers: Record<string, string>;
  /** What the upstream would refuse and was left out, as phrases for the dropped list. */
  readonly dropped: readonly string[];
}

/** Which flavour of its protocols' bodies an upstream reads (the translators' `upstreamDialect`). */
export type Dialect = 'openai' | 'anthropic' | 'compatible';

/** A problem with one provider's entry, at a path inside the entry (`['baseUrl']`). */
export interface KindIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** How `check` and the banner show a provider of this kind. */
export interface KindDescription {
  /** Where its requests go: the base URL, or words such as "built in". */
  where(config: ProviderConfig): string;
  /** How the credential travels ("Authorization: Bearer"); undefined for a kind that takes none. */
  readonly credential: string | undefined;
  /** Who refuses a request without a key, for `check`'s warning; undefined when a key is optional. */
  readonly keyRequiredBy?: string;
  /** What the provider signs or authenticates with instead of a key, when it has such a credential ("AWS SigV4, profile prod"). */
  signsWith?(config: ProviderConfig): string | undefined;
}

export interface ProviderKind<Type extends string = string, Own extends z.ZodRawShape = z.ZodRawShape> {
  /** The `type` written in the config. */
  readonly type: Type;
  /** One line on what it is and speaks, for the schema's descriptions. */
  readonly summary: string;
  /** Fields of its own, or common ones redefined (see config/provider-fields.ts). */
  readonly fields: Own;
  /** The protocols it speaks natively unless the config's `protocols` says otherwise. */
  readonly protocols: readonly Protocol[];
  /**
   * The protocols one upstream model is called in, for a kind whose models do not all speak the
   * same (Vertex AI: Claude in Messages, Gemini in Gemini's); undefined for a model called in all
   * of the provider's. See model-protocols.ts.
   */
  modelProtocols?(upstreamModel: string): readonly Protocol[] | undefined;
  readonly dialect: Dialect;
  /**
   * Whether the upstream counts a request's input tokens itself, at the `count_tokens` operation of
   * the protocol it is asked in (as that protocol's module `counter` says: OpenAI's input-token
   * counting endpoint for Responses, `countTokens` for Gemini). `count_tokens` on a translated route
   * asks it rather than estimating, since an estimate can be confidently wrong.
   */
  readonly countsInputTokens?: boolean;
  /**
   * Own fields taken from the environment when the entry leaves them out, by the variables the
   * vendor's own tools read, the first set one winning (`region`: `AWS_REGION`, `AWS_DEFAULT_REGION`).
   */
  readonly fromEnv?: Readonly<Partial<Record<keyof Own & string, readonly string[]>>>;
  /** Own fields an entry of `credentials` may set besides `apiKey` (a profile, a credentials file). */
  readonly credentialFields?: readonly (keyof Own & string)[];
  /** Own fields that hold credentials (a client secret): scrubbed from upstream error text like `apiKey`. */
  readonly secretFields?: readonly (keyof Own & string)[];
  /** The base URL the entry comes to, before trailing slashes are cut; undefined for a kind that has none. */
  baseUrl(entry: WrittenProviderOf<Type, Own>): string | undefined;
  /** Checks across the entry's fields that its schema cannot state; each is run after the schema passed. */
  rules?(entry: WrittenProviderOf<Type, Own>): KindIssue[];
  /** States the same checks in the entry's JSON Schema node, so an editor flags them too. */
  jsonSchema?(entry: Record<string, unknown>): void;
  readonly describe: KindDescription;
  /**
   * Rewrites every request for an upstream that takes its protocol's body in an envelope of its
   * own (Bedrock's and Vertex's Messages: no `model`, their own `anthropic_version`, betas in the
   * body). Absent, or undefined for a call: the body goes as prepared.
   */
  envelope?(config: ProviderConfig, call: EnvelopeCall): Enveloped | undefined;
  /**
   * The provider's model list as a GET, credential included: how `check --probe` reaches a
   * provider with no model to try. Absent: a kind with nothing to reach (echo).
   */
  models?(config: ProviderConfig): { readonly url: URL; readonly headers: Record<string, string> };
  create(config: ProviderConfig, deps: HttpProviderDeps | undefined): Provider;
}

/** Infers a kind's type parameters from the object written. */
export function defineKind<const Type extends string, const Own extends z.ZodRawShape>(kind: ProviderKind<Type, Own>): ProviderKind<Type, Own> {
  return kind;
}
