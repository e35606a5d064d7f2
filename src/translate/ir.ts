/**
 * The conversation model translation goes through. Each protocol has a decoder
 * (its wire shape → IR) and an encoder (IR → its wire shape) for requests,
 * complete responses and streams (`protocols/<protocol>/codec/`); the translator for a
 * pair (`translate/registry.ts`) composes the caller's decoder with the
 * upstream's encoder and the other way back.
 *
 * The IR is a superset of what the three protocols can say about one exchange,
 * so nothing that both ends can carry is lost on the way: thinking signatures,
 * encrypted reasoning, cache hints, tool-call ids and namespaces travel in
 * their own fields. What a target cannot carry is dropped by its encoder and
 * recorded in `TranslateContext.warnings`, never silently.
 */
import type { Json } from '../protocols/json.js';
import type { Protocol } from '../protocols/types.js';
import type { ReasoningSeal } from './common/reasoning-seal.js';

// ---------------------------------------------------------------- content parts

/** Anthropic's `cache_control` (kept opaque), carried so Messages targets keep prompt-cache breakpoints. */
export type CacheControl = Readonly<Record<string, unknown>>;

export interface TextPart {
  readonly type: 'text';
  readonly text: string;
  readonly cacheControl?: CacheControl;
}

export type ImageSource =
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'base64'; readonly mediaType: string; readonly data: string }
  | { readonly kind: 'file'; readonly fileId: string };

export interface ImagePart {
  readonly type: 'image';
  readonly source: ImageSource;
  /** OpenAI's `detail` (`auto` | `low` | `high` | `original`). */
  readonly detail?: string;
  readonly cacheControl?: CacheControl;
}

/** A document/file: PDF or text, inline (base64 or plain text), by URL or by provider file id. */
export interface FilePart {
  readonly type: 'file';
  readonly mediaType?: string;
  /** base64 for binary documents. */
  readonly data?: string;
  /** Plain text documents (Anthropic `{type:'text', media_type:'text/plain'}` sources). */
  readonly text?: string;
  readonly url?: string;
  readonly fileId?: string;
  readonly filename?: string;
  readonly cacheControl?: CacheControl;
}

/** How a tool call or tool is shaped on the wire where it came from. */
export type ToolKind = 'function' | 'custom';

export interface ToolCallPart {
  readonly type: 'tool_call';
  /** The id the result refers back to (Chat `tool_calls[].id`, Responses `call_id`, Anthropic `tool_use.id`). Kept stable across protocols. */
  readonly id: string;
  /** The tool's name as the caller knows it (namespace not included). */
  readonly name: string;
  /** The arguments as JSON text. May be invalid JSON when a model produced it so; encoders to Anthropic must cope. For `custom` tools: the free-form input text. */
  readonly arguments: string;
  readonly kind: ToolKind;
  /** Codex `namespace` tools: the namespace the called tool lives in. */
  readonly namespace?: string;
  /** Responses item id (`fc_…`, `ctc_…`), when known. */
  readonly itemId?: string;
  readonly cacheControl?: CacheControl;
}

export interface ToolResultPart {
  readonly type: 'tool_result';
  /** The `ToolCallPart.id` this answers. */
  readonly callId: string;
  readonly content: readonly (TextPart | ImagePart | FilePart)[];
  readonly isError?: boolean;
  /** The result of a `custom` tool call (Responses `custom_tool_call_output`). */
  readonly kind?: ToolKind;
  readonly cacheControl?: CacheControl;
}

/**
 * Model reasoning. Anthropic `thinking` has `text` + `signature`; `redacted_thinking` has `redacted`;
 * Responses `reasoning` items have `id`, `summary`, optional `text` and `encrypted`; Chat-compatible
 * servers stream plain `reasoning_content` text.
 */
export interface ReasoningPart {
  readonly type: 'reasoning';
  readonly text: string;
  readonly signature?: string;
  readonly redacted?: string;
  readonly encrypted?: string;
  readonly summary?: readonly string[];
  readonly id?: string;
  /** OpenRouter-style `reasoning_details` entries (Chat), kept as the upstream sent them, to send back. */
  readonly details?: readonly Json[];
}

export interface RefusalPart {
  readonly type: 'refusal';
  readonly text: string;
}

export type UserPart = TextPart | ImagePart | FilePart | ToolResultPart;
export type AssistantPart = TextPart | ReasoningPart | ToolCallPart | RefusalPart;

export type Message =
  /** A system or developer message in the middle of the conversation. */
  | { readonly role: 'system'; readonly content: readonly TextPart[] }
  | { readonly role: 'user'; readonly content: readonly UserPart[] }
  | { readonly role: 'assistant'; readonly content: readonly AssistantPart[] };

// ---------------------------------------------------------------- tools

export interface Tool {
  readonly kind: ToolKind;
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the arguments (`function` tools). Absent means "no parameters". */
  readonly parameters?: Readonly<Record<string, unknown>>;
  /** Explicit strict mode, when the caller said. */
  readonly strict?: boolean;
  /** Codex `namespace` tools: the namespace this tool was nested in. */
  readonly namespace?: string;
  /** `custom` tools: the input format (`{type:'text'}` or a grammar), kept opaque. */
  readonly format?: Readonly<Record<string, unknown>>;
  readonly cacheControl?: CacheControl;
}

export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'none' }
  /** Must call some tool (Chat/Responses `required`, Anthropic `any`). */
  | { readonly type: 'required' }
  | { readonly type: 'tool'; readonly name: string; readonly namespace?: string };

// ---------------------------------------------------------------- request

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ReasoningRequest {
  readonly effort?: ReasoningEffort;
  /** Anthropic `thinking.budget_tokens`, when the caller gave one. */
  readonly budgetTokens?: number;
  /** Responses `reasoning.summary` (`auto` | `concise` | `detailed`). */
  readonly summary?: string;
}

export type ResponseFormat =
  | { readonly type: 'text' }
  | { readonly type: 'json_object' }
  | {
      readonly type: 'json_schema';
      readonly name?: string;
      readonly description?: string;
      readonly schema: Readonly<Record<string, unknown>>;
      readonly strict?: boolean;
    };

export interface Request {
  readonly model: string;
  /** System prompt parts, in order (system/developer messages at the start, `instructions`, Anthropic `system`). */
  readonly system: readonly TextPart[];
  readonly messages: readonly Message[];
  readonly tools: readonly Tool[];
  readonly toolChoice?: ToolChoice;
  readonly parallelToolCalls?: boolean;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly topK?: number;
  readonly stop?: readonly string[];
  readonly stream: boolean;
  readonly reasoning?: ReasoningRequest;
  readonly responseFormat?: ResponseFormat;
  /** An end-user id (Chat/Responses `user`/`safety_identifier`, Anthropic `metadata.user_id`). */
  readonly user?: string;
  /** OpenAI `metadata` (string pairs). */
  readonly metadata?: Readonly<Record<string, string>>;
  /**
   * What ties one conversation's requests together for the upstream's prompt cache: Chat/Responses
   * `prompt_cache_key` (Codex sends its session id there), or Claude Code's session id.
   */
  readonly promptCacheKey?: string;
}

// ---------------------------------------------------------------- response

export type StopReason =
  /** Natural end (`stop` / `end_turn` / `completed`). */
  | 'end'
  | 'max_tokens'
  | 'tool_calls'
  | 'stop_sequence'
  | 'content_filter'
  | 'refusal'
  /** Anthropic `pause_turn`. */
  | 'pause'
  | 'context_window';

export interface Usage {
  /** All input tokens, cache reads and writes included (the OpenAI convention). */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Part of `inputTokens` read from the prompt cache. */
  readonly cacheReadTokens?: number;
  /** Part of `inputTokens` written to the prompt cache. */
  readonly cacheWriteTokens?: number;
  /** Part of `cacheWriteTokens` written to last an hour (Anthropic prices it apart); read for the cost, not translated. */
  readonly cacheWrite1hTokens?: number;
  /** Part of `outputTokens` spent on reasoning. */
  readonly reasoningTokens?: number;
}

export interface Response {
  readonly id: string;
  readonly model: string;
  /** Unix seconds. */
  readonly created: number;
  readonly content: readonly AssistantPart[];
  readonly stopReason: StopReason;
  readonly stopSequence?: string;
  readonly usage: Usage;
}

// ---------------------------------------------------------------- stream

/** The start of one content block; blocks are sequential: start, deltas, stop, then the next. */
export type BlockStart =
  | { readonly type: 'text' }
  | { readonly type: 'refusal' }
  | { readonly type: 'reasoning'; readonly id?: string; readonly redacted?: string; readonly encrypted?: string }
  | {
      readonly type: 'tool_call';
      readonly id: string;
      readonly name: string;
      readonly kind: ToolKind;
      readonly namespace?: string;
      readonly itemId?: string;
    };

export type BlockDelta =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'refusal'; readonly text: string }
  | { readonly type: 'reasoning'; readonly text: string }
  /** A piece of summary part `summaryIndex` (Responses reasoning summaries come in parts). */
  | { readonly type: 'reasoning_summary'; readonly summaryIndex: number; readonly text: string }
  | { readonly type: 'signature'; readonly signature: string }
  /**
   * A Responses reasoning item's `encrypted_content`, known only when the item is done (after its text),
   * so it cannot ride on the block start. Replaces the block's `encrypted`.
   */
  | { readonly type: 'encrypted'; readonly encrypted: string }
  /**
   * The block's OpenRouter-style `reasoning_details` entries, whole: Chat streams them in pieces
   * keyed by index, so the decoder gives them once they are complete (before the block stops).
   * Replaces the block's `details`.
   */
  | { readonly type: 'details'; readonly details: readonly Json[] }
  /** A piece of the tool call's arguments JSON (or custom input text). */
  | { readonly type: 'arguments'; readonly text: string };

export type StreamEvent =
  | { readonly type: 'start'; readonly id: string; readonly model: string; readonly created: number; readonly usage?: Partial<Usage> }
  | { readonly type: 'block_start'; readonly index: number; readonly block: BlockStart }
  | { readonly type: 'block_delta'; readonly index: number; readonly delta: BlockDelta }
  | { readonly type: 'block_stop'; readonly index: number }
  | { readonly type: 'finish'; readonly stopReason: StopReason; readonly stopSequence?: string; readonly usage: Usage }
  /** The upstream failed mid-stream; the caller's encoder ends its stream with its own error frame. */
  | { readonly type: 'error'; readonly message: string; readonly errorType?: string };

// ---------------------------------------------------------------- context

/** Per-request facts and findings shared by decoder and encoder. Created fresh for each request. */
export interface TranslateContext {
  readonly caller: Protocol;
  readonly upstream: Protocol;
  /** The model name the caller asked for: results carry it back, not the upstream's name. */
  readonly requestedModel: string;
  /** The name sent upstream. */
  readonly upstreamModel: string;
  /**
   * The caller asked for a stream, for a protocol whose body does not say it (Gemini streams by
   * calling `:streamGenerateContent`): its decoder reads the flag here. Others read their body.
   */
  readonly stream?: boolean;
  /** The model's configured output limit, for targets that require one (Messages). */
  readonly maxOutputTokens?: number;
  /**
   * How an Anthropic upstream model is asked to think (`adaptive` with an effort, or `enabled` with a
   * budget), when its configuration says; undefined: from the model name (`messages/codec/thinking-style.ts`).
   */
  readonly thinkingStyle?: 'adaptive' | 'enabled';
  /** `openai` speaks today's OpenAI dialect (`max_completion_tokens`); `compatible` servers get the older, more widely supported one (`max_tokens`). */
  readonly upstreamDialect: 'openai' | 'anthropic' | 'compatible';
  /** Clock (ms) and id source, injected so tests are deterministic. */
  readonly now: () => number;
  readonly newId: (prefix: string) => string;
  /**
   * What was dropped or approximated on the way, one short phrase each ("web_search tool (hosted)",
   * "logprobs", "reasoning history"). Shown in the verbose log and the `x-model-gateway-dropped` header,
   * so they must be plain ASCII without commas.
   */
  readonly warnings: string[];
  /** The model does not reason (its `features` lack `reasoning`): a reasoning request is dropped, not sent. */
  readonly reasoningUnsupported?: boolean;
  /** Tool names as sent upstream → the tool as the caller knows it (see `common/tool-names.ts`). */
  readonly toolNames: Map<string, CallerTool>;
  /**
   * Seals reasoning for a caller whose protocol cannot carry the upstream's own form, and opens
   * the seals callers send back (`common/reasoning-seal.ts`). Absent: such reasoning is dropped.
   */
  readonly seal?: ReasoningSeal;
  /**
   * The answer is stored by the gateway for later references (a Responses caller's `previous_response_id`,
   * `item_reference`): the caller's response id is made unique, and the answer says `store: true`.
   */
  readonly stored?: boolean;
}

/** A tool as the caller named it: what an upstream tool name maps back to. */
export interface CallerTool {
  readonly name: string;
  readonly namespace?: string;
  readonly kind: ToolKind;
}
