/**
 * The endpoints: (method, path) → what the request is. The model endpoints come from the
 * protocol modules (protocols/endpoints.ts); the gateway's own are here.
 * Query strings are ignored (`?beta=true`). (A route is something else: a model resolved to a
 * provider, routing/route.ts.)
 */
import { GatewayError, notFound } from '../errors.js';
import { protocolEndpointAt, protocolPaths } from '../protocols/endpoints.js';
import type { Operation, PathParams, Protocol } from '../protocols/types.js';

export type Endpoint =
  | { readonly kind: 'call'; readonly protocol: Protocol; readonly operation: Operation; readonly params: PathParams; readonly stream: boolean }
  | { readonly kind: 'models'; readonly id: string | undefined }
  | { readonly kind: 'health' }
  | { readonly kind: 'root' };

interface Entry {
  readonly method: string;
  readonly endpoint: Endpoint;
}

/** Where the models list lives: OpenAI's and Anthropic's path, and Gemini's `v1beta` (its `v1` is the first). */
const MODEL_LISTS = ['/v1/models', '/v1beta/models'] as const;

const gatewayOwn = new Map<string, Entry>([
  ...MODEL_LISTS.map((path): [string, Entry] => [path, { method: 'GET', endpoint: { kind: 'models', id: undefined } }]),
  ['/health', { method: 'GET', endpoint: { kind: 'health' } }],
  ['/', { method: 'GET', endpoint: { kind: 'root' } }],
]);

/** The paths the root document lists. */
export const listedPaths: readonly string[] = [...protocolPaths, ...MODEL_LISTS];

export function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  const path = q === -1 ? raw : raw.slice(0, q);
  // Tolerate a trailing slash (`/v1/messages/`), as the real APIs do.
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** The query string's parameters (the models list pages with them). */
export function queryOf(url: string | undefined): URLSearchParams {
  const q = url?.indexOf('?') ?? -1;
  return new URLSearchParams(q === -1 ? '' : url!.slice(q + 1));
}

export function endpointOf(method: string | undefined, path: string): Endpoint {
  const entry = gatewayOwn.get(path) ?? callEntry(path);
  if (entry) {
    // HEAD is GET without a body; node:http drops the body for us.
    if (method === entry.method || (method === 'HEAD' && entry.method === 'GET')) return entry.endpoint;
    throw new GatewayError('method_not_allowed', `Method ${method ?? '?'} is not allowed on ${path}; use ${entry.method}.`, {
      headers: { allow: entry.method === 'GET' ? 'GET, HEAD' : entry.method },
    });
  }
  const list = MODEL_LISTS.find((prefix) => path.startsWith(`${prefix}/`));
  if (list !== undefined) {
    if (method === 'GET' || method === 'HEAD') return { kind: 'models', id: modelId(path.slice(list.length + 1)) };
    // A model's method the gateway does not serve (Gemini's `:embedContent`): unknown, as Google answers it.
    if (/:[A-Za-z]+$/.test(path)) throw notFound(`Unknown path: ${method ?? '?'} ${path}. The gateway serves generateContent, streamGenerateContent and countTokens.`);
    throw new GatewayError('method_not_allowed', `Method ${method ?? '?'} is not allowed on ${path}; use GET.`, {
      headers: { allow: 'GET, HEAD' },
    });
  }
  // A common wiring mistake: an Anthropic client given a base URL that already ends in /v1.
  const hint = path.startsWith('/v1/v1/') ? ' The base URL for Anthropic clients must not end in /v1.' : '';
  throw notFound(`Unknown path: ${method ?? '?'} ${path}.${hint}`);
}

function callEntry(path: string): Entry | undefined {
  const hit = protocolEndpointAt(path);
  return hit && { method: hit.method, endpoint: { kind: 'call', protocol: hit.protocol, operation: hit.operation, params: hit.params, stream: hit.stream } };
}

function modelId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw notFound(`The model '${raw}' does not exist on this gateway.`, 'model_not_found', 'model');
  }
}
