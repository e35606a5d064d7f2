/**
 * One line of the usage ledger: what a finished model request used and cost, and whose it was
 * (key group, key, session, agent), never a body, a header or a secret. Written from the request's
 * record (writer.ts) and read back as hostile text (read.ts): a line someone edited, cut short by
 * a crash or made up says nothing it cannot, and costs at most its capped length to skip.
 */
import type { CostSource } from '../cost/cost.js';
import type { RequestRecord } from '../log/record.js';
import { isoTime } from '../log/iso-time.js';
import { jsonQuoted } from '../log/json-quoted.js';
import { printableLines } from '../log/terminal-text.js';

export const LEDGER_VERSION = 1;

export interface LedgerEntry {
  /** Epoch ms the request started (its budget period is the one it started in). */
  readonly time: number;
  readonly group: string;
  /** The key's name, else its id (a digest prefix, never the key). */
  readonly key: string;
  readonly keyId: string;
  /** The gateway model that served the request (a fallback's name when one did). */
  readonly model: string;
  readonly provider: string;
  readonly upstreamModel: string | undefined;
  readonly credential: string | undefined;
  readonly session: string | undefined;
  readonly agent: string | undefined;
  readonly status: number | undefined;
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  /** Dollars; null when the model had no price, or the provider reported no token counts. */
  readonly usd: number | null;
  /** Where the price came from; `unreported` when there were no counts to price. */
  readonly priced: CostSource | 'unpriced' | 'unreported';
}

/**
 * Whether a request goes to the ledger: a model request that reached a provider (counting tokens costs
 * nothing). Read from what the record already holds: this runs for every request.
 */
export function isLedgered(r: RequestRecord): boolean {
  return r.operation !== undefined && r.operation !== 'count_tokens' && r.model !== undefined && r.provider !== undefined && r.keyGroup !== undefined && r.keyId !== undefined;
}

/**
 * What a finished request's line will say, taken from its record when the response has closed: a
 * flat object of the record's own values, with no text made, so that a request's end does little
 * (the writer makes the lines a batch at a time: writer.ts).
 */
export function entryOf(r: RequestRecord): LedgerEntry {
  const u = r.usage;
  const usd = r.cost?.usd;
  return {
    time: r.startedAt,
    group: r.keyGroup ?? '',
    key: r.keyName ?? r.keyId ?? '',
    keyId: r.keyId ?? '',
    model: r.servedBy ?? r.model ?? '',
    provider: r.provider ?? '',
    upstreamModel: r.upstreamModel,
    credential: r.credential,
    session: r.sessionId,
    agent: r.agentId,
    status: r.status,
    input: count(u?.inputTokens) ?? 0,
    output: count(u?.outputTokens) ?? 0,
    cacheRead: count(u?.cachedTokens) ?? 0,
    cacheWrite: count(u?.cacheWriteTokens) ?? 0,
    usd: typeof usd === 'number' && Number.isFinite(usd) ? usd : null,
    priced: r.cost?.source ?? 'unreported',
  };
}

/**
 * The entry's ledger line (with its newline), as `JSON.stringify` of it would write it (fields left
 * undefined left out), written as text: one short string, with no Date made and no object for the
 * serialiser to walk (docs/performance.md, "The usage ledger").
 */
export function entryLine(e: LedgerEntry): string {
  return `{"v":${LEDGER_VERSION},"time":"${isoTime(e.time)}"${namesText(e)}${field('credential', e.credential)}${field('session', e.session)}${field('agent', e.agent)}${
    e.status === undefined ? '' : `,"status":${countText(e.status)}`},"input":${countText(e.input)},"output":${countText(e.output)},"cacheRead":${countText(e.cacheRead)},"cacheWrite":${countText(e.cacheWrite)},"usd":${
    e.usd === null ? 'null' : String(e.usd)},"priced":"${e.priced}"}\n`;
}

/** The names part of the last line written (group to upstreamModel), with the names it was made from. */
let lastNames:
  | { readonly group: string; readonly key: string; readonly keyId: string; readonly model: string; readonly provider: string; readonly upstreamModel: string | undefined; readonly text: string }
  | undefined;

/**
 * `,"group":…,"key":…,"keyId":…,"model":…,"provider":…[,"upstreamModel":…]`. Kept from the line before when it names
 * the same ones, as most lines do: a dozen strings fewer made per line (docs/performance.md, "A small request's allocations").
 */
function namesText(e: LedgerEntry): string {
  const last = lastNames;
  if (
    last !== undefined && last.group === e.group && last.key === e.key && last.keyId === e.keyId && last.model === e.model &&
    last.provider === e.provider && last.upstreamModel === e.upstreamModel
  ) {
    return last.text;
  }
  const text = `,"group":${jsonQuoted(e.group)},"key":${jsonQuoted(e.key)},"keyId":${jsonQuoted(e.keyId)},"model":${jsonQuoted(e.model)},"provider":${jsonQuoted(e.provider)}${
    e.upstreamModel === undefined ? '' : `,"upstreamModel":${jsonQuoted(e.upstreamModel)}`}`;
  lastNames = { group: e.group, key: e.key, keyId: e.keyId, model: e.model, provider: e.provider, upstreamModel: e.upstreamModel, text };
  return text;
}

/** `,"name":"value"` for a text field that is there; nothing for one that is not (as JSON.stringify leaves out undefined). */
const field = (name: string, value: string | undefined): string => (value === undefined ? '' : `,"${name}":${JSON.stringify(value)}`);

/** A count as the line holds it: what the provider reported, when it is a count, else 0. */
const countText = (n: number | undefined): string => (n !== undefined && Number.isSafeInteger(n) && n >= 0 ? String(n) : '0');

/** Longest text field kept from a line read back; longer ones are cut. */
const TEXT_LIMIT = 256;
/**
 * Longest session or agent id kept: the gateway keeps 128 characters of the caller's header
 * (`CLIENT_ID_LIMIT`), escaped for a terminal on arrival, and an escape is at most six characters
 * (`\uHHHH`). An id the gateway wrote reads back whole, so that its session is the one later
 * requests carry.
 */
export const ID_TEXT_LIMIT = 6 * 128;
const PRICED = new Set(['config', 'catalogue', 'unpriced', 'unreported']);

/** A ledger line read back, or undefined when it is not one (a bad line is skipped, not trusted in part). */
export function parseEntry(line: string): LedgerEntry | undefined {
  let j: unknown;
  try {
    j = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof j !== 'object' || j === null || Array.isArray(j)) return undefined;
  const o = j as Record<string, unknown>;
  const time = typeof o.time === 'string' ? Date.parse(o.time) : Number.NaN;
  const group = text(o.group);
  const keyId = text(o.keyId);
  const model = text(o.model);
  const provider = text(o.provider);
  const counts = [count(o.input), count(o.output), count(o.cacheRead), count(o.cacheWrite)] as const;
  const usd = o.usd === null ? null : typeof o.usd === 'number' && Number.isFinite(o.usd) && o.usd >= 0 ? o.usd : undefined;
  if (o.v !== LEDGER_VERSION || !Number.isFinite(time) || !group || !keyId || !model || !provider || usd === undefined) return undefined;
  const [input, output, cacheRead, cacheWrite] = counts;
  if (input === undefined || output === undefined || cacheRead === undefined || cacheWrite === undefined) return undefined;
  const status = typeof o.status === 'number' && Number.isInteger(o.status) && o.status >= 100 && o.status < 600 ? o.status : undefined;
  return {
    time,
    group,
    key: text(o.key) ?? keyId,
    keyId,
    model,
    provider,
    upstreamModel: text(o.upstreamModel),
    credential: text(o.credential),
    session: text(o.session, ID_TEXT_LIMIT),
    agent: text(o.agent, ID_TEXT_LIMIT),
    status,
    input,
    output,
    cacheRead,
    cacheWrite,
    usd,
    priced: typeof o.priced === 'string' && PRICED.has(o.priced) ? (o.priced as LedgerEntry['priced']) : usd === null ? 'unpriced' : 'catalogue',
  };
}

/**
 * A text field as the line holds it, capped; anything else is absent. Not escaped here: JSON's own
 * escapes give back exactly what was written, which budgets match on (a session's spend is restored
 * under the id its next request carries). Escaping is for where it is shown: `shownText`.
 */
function text(v: unknown, limit = TEXT_LIMIT): string | undefined {
  if (typeof v !== 'string' || v.length === 0) return undefined;
  return v.length > limit ? v.slice(0, limit) : v;
}

/**
 * A ledger text as a terminal or the inspector shows it. What the gateway writes there is safe to
 * show already (a session id was escaped for a terminal when its request arrived), so it shows as
 * it is, as in the log line; what an edit of the file put there raw (ESC, CR, a bidi override, a lone surrogate) is
 * escaped, line breaks too. Backslashes are left as they are: doubled, an id the gateway escaped
 * would show otherwise than in the log line and the inspector's rows of this run.
 */
export function shownText(text: string): string {
  const escaped = printableLines(text);
  return escaped.includes('\n') ? escaped.replace(LINE_BREAK, '\\n') : escaped;
}
const LINE_BREAK = /\n/g;

/** A token count: a finite non-negative integer below 2^53. */
function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}
