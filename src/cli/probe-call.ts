/**
 * One probe request and what came of it, through a real provider (`Provider.send`), read
 * to the end within a time limit; and the model-list GET for a provider with nothing to
 * try. Failures become outcomes, not exceptions, so the caller can classify them.
 */
import { request } from 'undici';
import type { ProviderConfig } from '../config/types.js';
import { GatewayError } from '../errors.js';
import { protocols } from '../protocols/registry.js';
import type { Protocol } from '../protocols/types.js';
import { transportError } from '../providers/http.js';
import { providerKind } from '../providers/kinds.js';
import type { Provider } from '../providers/types.js';
import { parseErrorBody } from '../providers/upstream-error.js';
import { upstreamHeaders } from '../pipeline/prepare.js';
import { createSseDecoder, type SseEvent } from '../sse/parse.js';
import { VERSION } from '../version.js';

export type Outcome =
  | { readonly kind: 'unreachable'; readonly detail: string }
  | { readonly kind: 'timeout'; readonly detail: string }
  | { readonly kind: 'http'; readonly status: number; readonly detail: string }
  | { readonly kind: 'json'; readonly json: unknown }
  | { readonly kind: 'stream'; readonly events: readonly SseEvent[]; readonly finished: boolean }
  | { readonly kind: 'not-stream'; readonly contentType: string }
  | { readonly kind: 'bad'; readonly detail: string };

async function readBody(body: AsyncIterable<Buffer | string>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    if (size < limit) chunks.push(buf);
    size += buf.length;
  }
  return Buffer.concat(chunks);
}

const httpDetail = (status: number, text: string): string => {
  const message = parseErrorBody(text).message ?? text.trim().slice(0, 200);
  return `HTTP ${status}${message ? `: ${message}` : ''}`;
};

export async function call(provider: Provider, protocol: Protocol, json: Record<string, unknown>, timeoutMs: number): Promise<Outcome> {
  const signal = AbortSignal.timeout(timeoutMs);
  const seconds = `${timeoutMs / 1000}s`;
  try {
    const headers = upstreamHeaders({ 'user-agent': `model-gateway/${VERSION} (check --probe)` }, protocol);
    // Sent as the gateway sends it: in the envelope of a kind that wraps the body (Bedrock, Vertex).
    const { envelope } = providerKind(provider.config.type);
    const sent = envelope?.(provider.config, { protocol, operation: 'create', json, headers }) ?? { json, headers };
    const res = await provider.send({
      protocol,
      operation: 'create',
      headers: sent.headers,
      body: Buffer.from(JSON.stringify(sent.json)),
      json: sent.json,
      model: String(json.model),
      stream: json.stream === true,
      signal,
    });
    const contentType = String(res.headers['content-type'] ?? '');
    if (res.status < 200 || res.status >= 300) {
      return { kind: 'http', status: res.status, detail: httpDetail(res.status, (await readBody(res.body, 4096)).toString('utf8')) };
    }
    if (json.stream === true) {
      if (!contentType.includes('text/event-stream')) {
        await readBody(res.body, 0);
        return { kind: 'not-stream', contentType: contentType || 'no content type' };
      }
      const decoder = createSseDecoder();
      const watch = protocols[protocol].watchStream();
      const events: SseEvent[] = [];
      for await (const chunk of res.body) {
        for (const event of decoder.push(chunk as Buffer)) {
          events.push(event);
          watch.onEvent(event);
        }
      }
      for (const event of decoder.end()) {
        events.push(event);
        watch.onEvent(event);
      }
      return { kind: 'stream', events, finished: watch.finished };
    }
    const text = (await readBody(res.body, 1024 * 1024)).toString('utf8');
    try {
      return { kind: 'json', json: JSON.parse(text) };
    } catch {
      return { kind: 'bad', detail: `answered ${res.status} with a body that is not JSON` };
    }
  } catch (err) {
    if (signal.aborted) return { kind: 'timeout', detail: `no complete answer within ${seconds}` };
    if (err instanceof GatewayError && err.kind === 'timeout') return { kind: 'timeout', detail: err.message };
    if (err instanceof GatewayError) return { kind: 'unreachable', detail: err.message };
    return { kind: 'unreachable', detail: err instanceof Error ? err.message : String(err) };
  }
}

/** The provider's model list asked for (the one call for a provider that has no model to try); undefined for a kind with no list to ask (nothing is called). */
export async function ping(provider: ProviderConfig, timeoutMs: number): Promise<Outcome | undefined> {
  const models = providerKind(provider.type).models?.(provider);
  if (!models) return undefined;
  const { url, headers } = models;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await request(url, { method: 'GET', headers, signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    const text = (await readBody(res.body, 4096)).toString('utf8');
    return res.statusCode >= 200 && res.statusCode < 300
      ? { kind: 'json', json: undefined }
      : { kind: 'http', status: res.statusCode, detail: httpDetail(res.statusCode, text) };
  } catch (err) {
    if (signal.aborted) return { kind: 'timeout', detail: `Provider '${provider.id}' did not answer GET ${url.pathname} within ${timeoutMs / 1000}s.` };
    const mapped = transportError(err, provider);
    return { kind: 'unreachable', detail: mapped instanceof Error ? mapped.message : String(mapped) };
  }
}
