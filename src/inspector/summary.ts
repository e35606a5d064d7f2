/**
 * A list row from a live record (reading only what is cheap: headers, a search of the
 * request bytes for `prompt_cache_key`, the response chunks up to the first token) or
 * from a recorded exchange. Built only when someone looks, never on the request path.
 */
import type { ExchangeJson } from '../log/exchange-json.js';
import type { CapturedBody, Exchange } from '../log/exchange.js';
import type { RequestRecord } from '../log/record.js';
import { recogniseClient, type HeaderBag } from './common/client.js';
import { carriesToken } from './common/first-token.js';
import { promptPreview } from './common/preview.js';
import { sessionFromBody, sessionFromHeaders } from './common/session.js';
import type { ExchangeSummary } from './common/types.js';

type Facts = Pick<
  RequestRecord,
  | 'id' | 'method' | 'path' | 'keyGroup' | 'keyName' | 'keyId' | 'model' | 'provider' | 'credential' | 'upstreamModel' | 'protocol'
  | 'upstreamProtocol' | 'stream' | 'status' | 'durationMs' | 'ttfbMs' | 'usage' | 'warnings' | 'error' | 'aborted'
  | 'agentId' | 'parentAgentId' | 'cost' | 'tries' | 'servedBy'
>;

const round = (ms: number | undefined) => (ms === undefined ? undefined : Math.round(ms * 10) / 10);

function common(r: Facts, time: number, headers: HeaderBag, pending: boolean): ExchangeSummary {
  const client = recogniseClient(headers);
  const keyName = r.keyName ?? r.keyId;
  const durationMs = round(r.durationMs);
  const ttfbMs = round(r.ttfbMs);
  // Undefined fields are left out: summaries travel as JSON and sit in memory by the hundred.
  return {
    id: r.id,
    time,
    method: r.method,
    path: r.path,
    ...(client ? { client } : {}),
    ...(r.agentId !== undefined ? { agentId: r.agentId } : {}),
    ...(r.parentAgentId !== undefined ? { parentAgentId: r.parentAgentId } : {}),
    ...(r.keyGroup !== undefined ? { keyGroup: r.keyGroup } : {}),
    ...(keyName !== undefined ? { keyName } : {}),
    ...(r.model !== undefined ? { model: r.model } : {}),
    ...(r.provider !== undefined ? { provider: r.provider } : {}),
    ...(r.credential !== undefined ? { credential: r.credential } : {}),
    ...(r.upstreamModel !== undefined ? { upstreamModel: r.upstreamModel } : {}),
    ...(r.protocol !== undefined ? { protocol: r.protocol } : {}),
    ...(r.upstreamProtocol !== undefined ? { upstreamProtocol: r.upstreamProtocol } : {}),
    translated: r.protocol !== undefined && r.upstreamProtocol !== undefined && r.protocol !== r.upstreamProtocol,
    ...(r.stream !== undefined ? { stream: r.stream } : {}),
    ...(pending ? { pending: true as const } : {}),
    ...(r.status !== undefined ? { status: r.status } : {}),
    ...(durationMs !== undefined ? { durationMs } : {}),
    ...(ttfbMs !== undefined ? { ttfbMs } : {}),
    ...(r.usage ? { usage: r.usage } : {}),
    ...(r.cost !== undefined ? { costUsd: r.cost.usd } : {}),
    ...(r.tries !== undefined && r.tries.length > 0 ? { retries: r.tries.length } : {}),
    ...(r.servedBy !== undefined ? { servedBy: r.servedBy } : {}),
    warnings: r.warnings ? new Set(r.warnings).size : 0,
    attempts: 0,
    ...(r.error !== undefined ? { error: r.error } : {}),
    ...(r.aborted ? { aborted: true as const } : {}),
  };
}

export function summaryOfRecord(r: RequestRecord, pending: boolean): ExchangeSummary {
  const x = r.exchange;
  const headers: HeaderBag = x?.requestHeaders ?? (r.userAgent ? { 'user-agent': r.userAgent } : {});
  const base = common(r, r.startedAt, headers, pending);
  // The record keeps the session header even when no exchange is captured.
  if (!x) return r.sessionId !== undefined ? { ...base, sessionId: r.sessionId } : base;
  const sessionId = r.sessionId ?? sessionFromHeaders(x.requestHeaders) ?? promptCacheKey(x.request);
  const ttftMs = r.stream && !pending ? firstTokenMs(clientResponse(x)) : undefined;
  const truncated = x.request.truncated || x.response.truncated || x.attempts.some((a) => a.body.truncated || a.response.truncated);
  const preview = pending ? undefined : previewOf(r.protocol, x.request);
  return {
    ...base,
    ...(preview ? { preview } : {}),
    ...(sessionId ? { sessionId } : {}),
    ...(ttftMs !== undefined ? { ttftMs: round(ttftMs)! } : {}),
    attempts: x.attempts.length,
    ...(truncated ? { truncated: true as const } : {}),
  };
}

export function summaryOfJson(j: ExchangeJson): ExchangeSummary {
  const headers = j.request?.headers ?? (j.userAgent ? { 'user-agent': j.userAgent } : {});
  const base = common(j, Date.parse(j.time), headers, false);
  const sessionId = j.sessionId ?? sessionFromHeaders(headers) ?? sessionFromBody(j.request?.body.json);
  const events = j.response?.body.events;
  const first = j.stream && events ? events.find((e) => carriesToken(typeof e.data === 'string' ? e.data : JSON.stringify(e.data))) : undefined;
  const bodies = [j.request?.body, j.response?.body, ...(j.attempts ?? []).flatMap((a) => [a.body, a.response])];
  const truncated = bodies.some((b) => b?.truncated);
  const preview = promptPreview(j.protocol, j.request?.body.json);
  return {
    ...base,
    ...(preview ? { preview } : {}),
    ...(sessionId ? { sessionId } : {}),
    ...(first ? { ttftMs: first.t } : {}),
    attempts: j.attempts?.length ?? 0,
    ...(truncated ? { truncated: true as const } : {}),
  };
}

/** What the client received: the last attempt's answer when it was relayed unchanged. */
function clientResponse(x: Exchange): CapturedBody {
  return x.responseIsUpstream ? (x.attempts[x.attempts.length - 1]?.response ?? x.response) : x.response;
}

const chunkText = (data: Buffer | string) => (typeof data === 'string' ? data : data.toString('latin1'));

/** The arrival time of the first chunk with model output. An event split across chunks is found in its second half. */
export function firstTokenMs(body: CapturedBody): number | undefined {
  for (const c of body.chunks) if (carriesToken(chunkText(c.data))) return c.t;
  return undefined;
}

/** Bodies past this are not parsed for a preview: the list is built for hundreds of rows at once. */
const PREVIEW_MAX_BYTES = 256 * 1024;

/** The prompt preview of a captured request body, parsed once when its row is built. */
function previewOf(protocol: RequestRecord['protocol'], body: CapturedBody): string | undefined {
  let size = 0;
  for (const c of body.chunks) size += c.data.length;
  if (body.truncated || size === 0 || size > PREVIEW_MAX_BYTES) return undefined;
  try {
    const text = body.chunks.map((c) => (typeof c.data === 'string' ? c.data : c.data.toString('utf8'))).join('');
    return promptPreview(protocol, JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

const CACHE_KEY = Buffer.from('"prompt_cache_key"');
const CACHE_KEY_VALUE = /^\s*:\s*"([^"\\]{1,200})"/;

/** Codex's `prompt_cache_key`, found in the request bytes without parsing a body that may be megabytes. */
export function promptCacheKey(body: CapturedBody): string | undefined {
  for (const c of body.chunks) {
    const buf = typeof c.data === 'string' ? Buffer.from(c.data) : c.data;
    const at = buf.indexOf(CACHE_KEY);
    if (at < 0) continue;
    const m = CACHE_KEY_VALUE.exec(buf.toString('utf8', at + CACHE_KEY.length, at + CACHE_KEY.length + 240));
    if (m?.[1]) return m[1];
  }
  return undefined;
}
