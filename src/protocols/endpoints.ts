/**
 * The protocols' caller-facing endpoints, from their modules, matched against a request path:
 * literal paths by one map lookup, templated ones (`{model}`) in the order the registry lists them.
 */
import { isLiteral, matchTemplate, parseTemplate, type PathTemplate } from './path-template.js';
import { protocols } from './registry.js';
import { PROTOCOLS, type Operation, type PathParams, type Protocol } from './types.js';

export interface ProtocolEndpointMatch {
  readonly method: string;
  readonly protocol: Protocol;
  readonly operation: Operation;
  readonly params: PathParams;
  /** The endpoint streams its answer whatever the body says. */
  readonly stream: boolean;
}

const NO_PARAMS: PathParams = Object.freeze({});
const literal = new Map<string, ProtocolEndpointMatch>();
const templated: { readonly template: PathTemplate; readonly method: string; readonly protocol: Protocol; readonly operation: Operation; readonly stream: boolean }[] = [];
for (const protocol of PROTOCOLS) {
  for (const { method, path, operation, stream } of protocols[protocol].endpoints) {
    const template = parseTemplate(path);
    if (isLiteral(template)) literal.set(path, { method, protocol, operation, params: NO_PARAMS, stream: stream === true });
    else templated.push({ template, method, protocol, operation, stream: stream === true });
  }
}

/** Every protocol's endpoint paths, as the gateway's root document lists them. */
export const protocolPaths: readonly string[] = PROTOCOLS.flatMap((p) => protocols[p].endpoints.map((e) => e.path));

/** The protocol endpoint at `path` (no query string), whatever the method; undefined when none is. */
export function protocolEndpointAt(path: string): ProtocolEndpointMatch | undefined {
  const hit = literal.get(path);
  if (hit !== undefined || templated.length === 0) return hit;
  for (const { template, method, protocol, operation, stream } of templated) {
    const params = matchTemplate(template, path);
    if (params) return { method, protocol, operation, params, stream };
  }
  return undefined;
}
