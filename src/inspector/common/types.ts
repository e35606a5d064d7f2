/**
 * What the inspector's server sends its page: a small summary per exchange for the
 * list, and the whole exchange (`ExchangeJson`) only when one is opened. Shared by
 * the server and the browser bundle, so nothing here may import node modules.
 */
import type { ExchangeJson } from '../../log/exchange-json.js';
import type { Protocol, Usage } from '../../protocols/types.js';
import type * as Ir from '../../translate/ir.js';
import type { ReadAnswer } from '../../translate/read-answer.js';

export type ClientKind = 'claude-code' | 'codex' | 'openai-sdk' | 'anthropic-sdk' | 'other';

/** Which program sent a request, as far as its headers tell. */
export interface ClientInfo {
  readonly kind: ClientKind;
  /** For people: "Claude Code 2.1.330", "OpenAI SDK (python) 1.99.0". */
  readonly label: string;
  readonly version?: string;
}

/** One row of the list. Built once the exchange has ended (or as it starts, marked pending). */
export interface ExchangeSummary {
  readonly id: string;
  /** Epoch ms the request arrived. */
  readonly time: number;
  readonly method: string;
  readonly path: string;
  readonly client?: ClientInfo;
  readonly sessionId?: string;
  /** The Claude Code subagent that sent it (none: the main agent), and the agent that started that one. */
  readonly agentId?: string;
  readonly parentAgentId?: string;
  readonly keyGroup?: string;
  /** The key's name, else its non-secret id. */
  readonly keyName?: string;
  readonly model?: string;
  readonly provider?: string;
  /** The provider credential's name, for a provider with several. */
  readonly credential?: string;
  readonly upstreamModel?: string;
  readonly protocol?: Protocol;
  readonly upstreamProtocol?: Protocol;
  readonly translated: boolean;
  readonly stream?: boolean;
  /** Still running: only the facts known at its start are filled in. */
  readonly pending?: true;
  readonly status?: number;
  readonly durationMs?: number;
  /** Time to the first byte sent to the client (streams). */
  readonly ttfbMs?: number;
  /** Time to the first token (text, tool or reasoning delta) sent to the client (streams). */
  readonly ttftMs?: number;
  readonly usage?: Usage;
  /** What it cost in US dollars; null: the model has no known price. Absent: not priced (yet). */
  readonly costUsd?: number | null;
  /** Attempts that failed before the answer: retries on the same model, and fallbacks to others. */
  readonly retries?: number;
  /** The fallback model that served it, when not the one asked for. */
  readonly servedBy?: string;
  /** The start of the last user text, for the list (live exchanges whose request body was kept). */
  readonly preview?: string;
  /** How many things translation dropped or approximated. */
  readonly warnings: number;
  readonly attempts: number;
  readonly error?: string;
  readonly aborted?: true;
  /** Some body was cut at the capture limit. */
  readonly truncated?: true;
  /** The bodies were let go to make room for newer exchanges' (the facts stay). */
  readonly bodiesDropped?: true;
  /** Only the facts were kept: it passed while no page was open, past `inspector.bodiesPerSecond`. */
  readonly bodiesSkipped?: true;
  /** From before the gateway restarted: its facts as the usage ledger kept them, never its bodies. */
  readonly restored?: true;
}

/** GET /_inspector/api/exchanges */
export interface ExchangeList {
  readonly mode: 'live' | 'recording';
  /** The recording's file name, in recording mode. */
  readonly source?: string;
  /** Lines of the recording that were not exchanges and were skipped: how many, and the first line numbers. */
  readonly skippedLines?: SkippedLines;
  /** Ring buffer bounds and use. */
  readonly capacity: number;
  readonly maxBytes: number;
  readonly bytes: number;
  /** Exchanges dropped from memory so far to stay within the bounds. */
  readonly evicted: number;
  /** Newest first. */
  readonly exchanges: readonly ExchangeSummary[];
}

export interface SkippedLines {
  readonly count: number;
  readonly lines: readonly number[];
}

/** GET /_inspector/api/exchanges/:id */
export interface ExchangeDetail {
  readonly summary: ExchangeSummary;
  readonly exchange: ExchangeJson;
  /** The exchange read as a conversation, for a create request whose request body was kept. */
  readonly conversation?: Conversation;
}

/**
 * A create request and the answer its caller got, in the intermediate form the codecs decode to
 * (`translate/ir.ts`), so that one view shows every protocol.
 */
export interface Conversation {
  /** The caller's protocol, which both were read in. */
  readonly protocol: Protocol;
  /** The system prompt's parts. */
  readonly system: readonly string[];
  readonly messages: readonly Ir.Message[];
  /** The tools offered, by name. */
  readonly tools: readonly string[];
  readonly answer?: ConversationAnswer;
  /** Why the request could not be read as a conversation. */
  readonly unreadable?: string;
}

/** The answer as `translate/read-answer.ts` reads it (types only: nothing of it reaches the page's bundle). */
export type ConversationAnswer = ReadAnswer;

/** The store's use, sent with each pushed row so the page's figures stay current. */
export interface StoreUse {
  readonly bytes: number;
  readonly evicted: number;
}

/** The SSE events of GET /_inspector/api/events. */
export type PushEvent =
  | { readonly type: 'hello' }
  /** An exchange started or ended: insert or replace the row. */
  | { readonly type: 'exchange'; readonly summary: ExchangeSummary; readonly use: StoreUse };
