/**
 * One line of the usage ledger: what a finished model request used and cost, and whose it was
 * (key group, key, session, agent), never a body, a header or a secret. Written from the request's
 * record (writer.ts) and read back as hostile text (read.ts): a line someone edited, cut short by
 * a crash or made up says nothing it cannot, and costs at most its capped length to skip.
 */
import type { CostSource } from '../cost/cost.js';
import type { RequestRecord } from '../log/record.js';
import { endpointOf } from '../pipeline/endpoints.js';
import { printable } from '../log/terminal-text.js';

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

/** Whether a request goes to the ledger: a model request that reached a provider (count_tokens costs nothing). */
export function isLedgered(r: RequestRecord): boolean {
  if (r.model === undefined || r.provider === undefined || r.keyGroup === undefined) return false;
  const endpoint = endpointOf(r.method, r.path);
  return endpoint.kind === 'call' && endpoint.operation !== 'count_tokens';
}

/** The ledger line of a finished request (with its newline). */
export function entryLine(r: RequestRecord): string {
  const u = r.usage;
  return `${JSON.stringify({
    v: LEDGER_VERSION,
    time: new Date(r.startedAt).toISOString(),
    group: r.keyGroup,
    key: r.keyName ?? r.keyId,
    keyId: r.keyId,
    model: r.servedBy ?? r.model,
    provider: r.provider,
    upstreamModel: r.upstreamModel,
    credential: r.credential,
    session: r.sessionId,
    agent: r.agentId,
    status: r.status,
    input: u?.inputTokens ?? 0,
    output: u?.outputTokens ?? 0,
    cacheRead: u?.cachedTokens ?? 0,
    cacheWrite: u?.cacheWriteTokens ?? 0,
    usd: r.cost?.usd ?? null,
    priced: r.cost?.source ?? 'unreported',
  })}\n`;
}

/** Longest text field kept from a line read back; longer ones are cut. */
const TEXT_LIMIT = 256;
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
    session: text(o.session),
    agent: text(o.agent),
    status,
    input,
    output,
    cacheRead,
    cacheWrite,
    usd,
    priced: typeof o.priced === 'string' && PRICED.has(o.priced) ? (o.priced as LedgerEntry['priced']) : usd === null ? 'unpriced' : 'catalogue',
  };
}

/** A text field, escaped for a terminal and capped; anything else is absent. */
function text(v: unknown): string | undefined {
  if (typeof v !== 'string' || v.length === 0) return undefined;
  return printable(v.length > TEXT_LIMIT ? v.slice(0, TEXT_LIMIT) : v);
}

/** A token count: a finite non-negative integer below 2^53. */
function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}
