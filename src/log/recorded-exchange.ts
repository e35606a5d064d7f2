/**
 * One line of a `--log-file` recording read back: JSON of the `ExchangeJson` shape, every
 * field it has of the type that shape says. A recording is a file anyone could have written,
 * and `inspect` and `replay` use its fields as typed (a `status` compared, `headers` walked,
 * `events` mapped), so a line whose fields do not fit is refused here, whole, with where it
 * does not fit, instead of failing later in whatever reads that field. Fields the shape does
 * not know are kept: a newer gateway may add some.
 */
import { z } from '../config/zod.js';
import { MAX_JSON_DEPTH, mayNestDeeperThan, nestedDeeperThan } from '../protocols/json-outline.js';
import type { ExchangeJson } from './exchange-json.js';
import { PROTOCOLS } from '../protocols/types.js';

/**
 * A recording nests a body's JSON (bounded by MAX_JSON_DEPTH when it was recorded: deeper
 * bodies are kept as text) a few levels down (`attempts[i].response.events[j].data`); deeper
 * than that, the readers' and the page's recursive walks over it could overflow their stacks.
 */
const MAX_LINE_DEPTH = MAX_JSON_DEPTH + 16;

const protocol = z.enum(PROTOCOLS);
/** As node:http and undici deliver them: a string, a list of them, or a number some servers set. */
const headers = z.record(z.string(), z.union([z.string(), z.number(), z.array(z.string())]));
const usage = z.looseObject({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  cachedTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
});
const body = z.looseObject({
  bytes: z.number(),
  json: z.unknown().optional(),
  text: z.string().optional(),
  events: z.array(z.looseObject({ t: z.number(), event: z.string().optional(), data: z.unknown() })).optional(),
  truncated: z.literal(true).optional(),
});
const attempt = z.looseObject({
  model: z.string(),
  provider: z.string(),
  credential: z.string().optional(),
  upstreamModel: z.string(),
  protocol,
  t: z.number(),
  durationMs: z.number().optional(),
  status: z.number().optional(),
  error: z.string().optional(),
  headers,
  body,
  responseHeaders: headers.optional(),
  response: body,
});
const exchange = z.looseObject({
  v: z.number().optional(),
  id: z.string(),
  // The page sorts and shows it as a date.
  time: z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'not a date'),
  method: z.string(),
  path: z.string(),
  transport: z.literal('websocket').optional(),
  protocol: protocol.optional(),
  upstreamProtocol: protocol.optional(),
  userAgent: z.string().optional(),
  sessionId: z.string().optional(),
  agentId: z.string().optional(),
  parentAgentId: z.string().optional(),
  keyGroup: z.string().optional(),
  keyId: z.string().optional(),
  keyName: z.string().optional(),
  model: z.string().optional(),
  provider: z.string().optional(),
  credential: z.string().optional(),
  upstreamModel: z.string().optional(),
  stream: z.boolean().optional(),
  status: z.number().optional(),
  durationMs: z.number().optional(),
  ttfbMs: z.number().optional(),
  usage: usage.optional(),
  warnings: z.array(z.string()).optional(),
  error: z.string().optional(),
  aborted: z.boolean().optional(),
  request: z.looseObject({ headers, body }).optional(),
  attempts: z.array(attempt).optional(),
  response: z.looseObject({ status: z.number().optional(), headers: headers.optional(), body }).optional(),
});

/** Where the first misfit is and what it is: `"response.status": expected number, received string`. */
function misfit(issue: z.core.$ZodIssue): string {
  // A header's name is the recording's own text: shown as `*`, so the report quotes nothing recorded.
  const where = issue.path.map((key, i) => (i > 0 && /^(?:h|responseH)eaders$/.test(String(issue.path[i - 1])) ? '*' : String(key))).join('.');
  const what =
    issue.code === 'invalid_union'
      ? 'not a string, a number or a list of strings'
      : / received undefined$/.test(issue.message)
        ? 'missing'
        : issue.message.replace(/^Invalid (?:input|option): /, '').replace('expected record', 'expected object');
  return where === '' ? what : `"${where}": ${what}`;
}

/** The exchange a line holds, or why it holds none (a short text, without the line's bytes). */
export function readExchangeLine(text: string): { exchange: ExchangeJson } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: text.trimStart().startsWith('{') ? 'not JSON (cut short, or damaged)' : 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'not a JSON object' };
  // JSON.parse takes any depth, but the walks over the parsed value (the checks below, the page) recurse.
  if (mayNestDeeperThan(text.length, MAX_LINE_DEPTH) && nestedDeeperThan(Buffer.from(text), MAX_LINE_DEPTH)) {
    return { problem: `nested deeper than ${MAX_LINE_DEPTH} levels` };
  }
  const checked = exchange.safeParse(value);
  if (!checked.success) return { problem: misfit(checked.error.issues[0]!) };
  return { exchange: checked.data as ExchangeJson };
}
