/**
 * The rows history keeps without bodies (most requests once the body rate is spent, body-rate.ts): each
 * request's facts written into columns made once for the store's whole ring (numbers in one typed
 * array, texts in one array), rather than the request's record held.
 *
 * Why: a record held for the few hundred requests history keeps outlives a young collection, so it is
 * copied there with all it holds (its usage, its cost, its times boxed as heap numbers), and in some
 * processes promoted to die in the old generation, at a cost to every request. Columns live as long as
 * the gateway: numbers are written in place, and a text equal to the one the row before holds (the
 * path, the user agent, the model) is taken from there, so the request's own copy dies young with it.
 * What a row holds anew is its id. A record with one of the rare facts (a failure, retries, a
 * translation's warnings) is not written here: the store keeps the record itself.
 */
import type { Cost } from '../cost/cost.js';
import { newRecord, type RequestRecord } from '../log/record.js';
import type { Usage } from '../protocols/types.js';

/** Where each of a record's fields goes: a text column, the numbers, or nowhere (a rare fact: the record is kept instead). */
const FIELDS = {
  id: 'text',
  startedAt: 'number',
  start: 'number',
  method: 'text',
  path: 'text',
  transport: 'text',
  protocol: 'text',
  operation: 'text',
  upstreamProtocol: 'text',
  userAgent: 'text',
  sessionId: 'text',
  agentId: 'text',
  parentAgentId: 'text',
  keyGroup: 'text',
  keyId: 'text',
  keyName: 'text',
  model: 'text',
  provider: 'text',
  credential: 'text',
  upstreamModel: 'text',
  stream: 'number',
  status: 'number',
  durationMs: 'number',
  ttfbMs: 'number',
  usage: 'number',
  cost: 'number',
  attemptCount: 'number',
  servedBy: 'rare',
  tries: 'rare',
  warnings: 'rare',
  error: 'rare',
  errorKind: 'rare',
  refusedBy: 'rare',
  aborted: 'rare',
  // Gone once the request has ended: bodies are kept apart (packed.ts), and the trace's spans have ended.
  exchange: 'not kept',
  trace: 'not kept',
} as const satisfies Record<keyof RequestRecord, 'text' | 'number' | 'rare' | 'not kept'>;

type FieldsOf<Kind> = { [K in keyof typeof FIELDS]: (typeof FIELDS)[K] extends Kind ? K : never }[keyof typeof FIELDS];
type TextField = FieldsOf<'text'>;

const fieldsOf = <Kind extends string>(kind: Kind) =>
  (Object.keys(FIELDS) as (keyof typeof FIELDS)[]).filter((k): k is FieldsOf<Kind> => FIELDS[k] === kind);
/** The text columns, in order. */
export const TEXT_FIELDS: readonly TextField[] = fieldsOf('text');
/** The facts a row cannot hold. */
export const RARE_FIELDS: readonly FieldsOf<'rare'>[] = fieldsOf('rare');

/** Each number column's place in a row: undefined is NaN, so each column holds one representation. */
const N = {
  startedAt: 0,
  start: 1,
  /** 0, 1, or NaN. */
  stream: 2,
  status: 3,
  durationMs: 4,
  ttfbMs: 5,
  attemptCount: 6,
  /** 1 when the record has a usage (its counts NaN where it has none). */
  usage: 7,
  inputTokens: 8,
  outputTokens: 9,
  cachedTokens: 10,
  cacheWriteTokens: 11,
  cacheWrite1hTokens: 12,
  /** COST_SOURCES' index of the cost's source, or NaN: no cost. */
  costSource: 13,
  /** NaN when unpriced. */
  costUsd: 14,
} as const;
const NUMBERS = Object.keys(N).length;

/** Each text column's place in a row. */
const T = Object.fromEntries(TEXT_FIELDS.map((field, i) => [field, i])) as Record<TextField, number>;
const TEXTS = TEXT_FIELDS.length;
const COST_SOURCES: readonly Cost['source'][] = ['config', 'catalogue', 'unpriced'];

const orUndefined = (n: number) => (Number.isNaN(n) ? undefined : n);

export interface Rows {
  /** Writes the record's facts into row `index`; false, writing nothing, when the record has a rare fact. */
  write(index: number, record: RequestRecord): boolean;
  /** The record row `index` holds, as it was when written (without its exchange and trace). */
  read(index: number): RequestRecord;
  id(index: number): string;
}

export function createRows(capacity: number): Rows {
  const numbers = new Float64Array(capacity * NUMBERS);
  const texts = new Array<string | undefined>(capacity * TEXTS).fill(undefined);
  /** The row written last: a text equal to its own is taken from there. */
  let last = 0;
  /** Keeps the copy the row before holds when equal, so this request's dies young with it. */
  const text = (at: number, column: number, value: string | undefined) => {
    const before = texts[last * TEXTS + column];
    texts[at + column] = before === value ? before : value;
  };

  return {
    write(index, r) {
      // Each field by its name, not in a loop over the names: a load by a name that varies takes V8's generic path.
      if (
        r.servedBy !== undefined ||
        r.tries !== undefined ||
        r.warnings !== undefined ||
        r.error !== undefined ||
        r.errorKind !== undefined ||
        r.refusedBy !== undefined ||
        r.aborted !== undefined
      ) {
        return false;
      }
      const at = index * TEXTS;
      texts[at + T.id] = r.id;
      text(at, T.method, r.method);
      text(at, T.path, r.path);
      text(at, T.transport, r.transport);
      text(at, T.protocol, r.protocol);
      text(at, T.operation, r.operation);
      text(at, T.upstreamProtocol, r.upstreamProtocol);
      text(at, T.userAgent, r.userAgent);
      text(at, T.sessionId, r.sessionId);
      text(at, T.agentId, r.agentId);
      text(at, T.parentAgentId, r.parentAgentId);
      text(at, T.keyGroup, r.keyGroup);
      text(at, T.keyId, r.keyId);
      text(at, T.keyName, r.keyName);
      text(at, T.model, r.model);
      text(at, T.provider, r.provider);
      text(at, T.credential, r.credential);
      text(at, T.upstreamModel, r.upstreamModel);
      const n = index * NUMBERS;
      numbers[n + N.startedAt] = r.startedAt;
      numbers[n + N.start] = r.start;
      numbers[n + N.stream] = r.stream === undefined ? Number.NaN : r.stream ? 1 : 0;
      numbers[n + N.status] = r.status ?? Number.NaN;
      numbers[n + N.durationMs] = r.durationMs ?? Number.NaN;
      numbers[n + N.ttfbMs] = r.ttfbMs ?? Number.NaN;
      numbers[n + N.attemptCount] = r.attemptCount ?? Number.NaN;
      const u = r.usage;
      numbers[n + N.usage] = u === undefined ? 0 : 1;
      numbers[n + N.inputTokens] = u?.inputTokens ?? Number.NaN;
      numbers[n + N.outputTokens] = u?.outputTokens ?? Number.NaN;
      numbers[n + N.cachedTokens] = u?.cachedTokens ?? Number.NaN;
      numbers[n + N.cacheWriteTokens] = u?.cacheWriteTokens ?? Number.NaN;
      numbers[n + N.cacheWrite1hTokens] = u?.cacheWrite1hTokens ?? Number.NaN;
      const cost = r.cost;
      numbers[n + N.costSource] = cost === undefined ? Number.NaN : COST_SOURCES.indexOf(cost.source);
      numbers[n + N.costUsd] = cost?.usd ?? Number.NaN;
      last = index;
      return true;
    },

    read(index) {
      const at = index * TEXTS;
      const n = index * NUMBERS;
      const r = newRecord(texts[at + T.id]!, numbers[n + N.startedAt]!, numbers[n + N.start]!, '', '');
      const fields: { [K in TextField]?: string | undefined } = r;
      for (let c = 0; c < TEXTS; c++) fields[TEXT_FIELDS[c]!] = texts[at + c];
      const stream = numbers[n + N.stream]!;
      r.stream = Number.isNaN(stream) ? undefined : stream === 1;
      r.status = orUndefined(numbers[n + N.status]!);
      r.durationMs = orUndefined(numbers[n + N.durationMs]!);
      r.ttfbMs = orUndefined(numbers[n + N.ttfbMs]!);
      r.attemptCount = orUndefined(numbers[n + N.attemptCount]!);
      if (numbers[n + N.usage] === 1) r.usage = usageAt(numbers, n);
      const source = COST_SOURCES[numbers[n + N.costSource]!];
      if (source !== undefined) r.cost = source === 'unpriced' ? { usd: null, source } : { usd: numbers[n + N.costUsd]!, source };
      return r;
    },

    id: (index) => texts[index * TEXTS + T.id]!,
  };
}

/** The usage with the counts it had (an absent count stays absent). */
function usageAt(numbers: Float64Array, n: number): Usage {
  const usage: Usage = {};
  const put = (key: keyof Usage, value: number) => {
    if (!Number.isNaN(value)) usage[key] = value;
  };
  put('inputTokens', numbers[n + N.inputTokens]!);
  put('outputTokens', numbers[n + N.outputTokens]!);
  put('cachedTokens', numbers[n + N.cachedTokens]!);
  put('cacheWriteTokens', numbers[n + N.cacheWriteTokens]!);
  put('cacheWrite1hTokens', numbers[n + N.cacheWrite1hTokens]!);
  return usage;
}
