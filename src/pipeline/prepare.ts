/**
 * What goes upstream on a route: the caller's bytes with `model` renamed (passthrough) or the
 * request translated for the upstream protocol, and the client headers allowed to go along.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { outputCapField, outputCapToAdd, withAsk } from '../auth/group-caps.js';
import { compactingTranslator } from '../compact/translator.js';
import type { ProtocolModule } from '../protocols/protocol.js';
import { protocols } from '../protocols/registry.js';
import { type Operation, PROTOCOLS, type Protocol } from '../protocols/types.js';
import type { ProviderKind } from '../providers/kind.js';
import { providerKind } from '../providers/kinds.js';
import type { Route } from '../routing/route.js';
import { addNumberField } from '../translate/add-field.js';
import type { TranslateContext } from '../translate/ir.js';
import { warn } from '../translate/common/warn.js';
import { renameModel } from '../translate/rename-model.js';
import type { ModelRequest } from './model-request.js';
import { keeping } from './references.js';
import type { Translation } from './relay/context.js';

/** What goes upstream on a route: the protocol, headers and bytes, and how to bring the answer back. */
export interface Prepared {
  /** The upstream protocol. */
  readonly protocol: Protocol;
  /** The upstream operation: the caller's on passthrough; a translated request is always a create. */
  readonly operation: Operation;
  /** The model named upstream (a provider may put it in the URL rather than the body). */
  readonly model: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  /** The request sent, parsed; undefined for passthrough, which sends the caller's own bytes. */
  readonly json: Record<string, unknown> | undefined;
  readonly translation: Translation | undefined;
  /** What was dropped or approximated on the way (translation's warnings; seals taken out of a passthrough). */
  readonly warnings: readonly string[] | undefined;
}

export function prepare(r: ModelRequest, route: Route): Prepared {
  const prepared = prepareBody(r, route);
  const { envelope } = providerKind(route.target.provider.type);
  return envelope ? envelop(prepared, route, envelope) : prepared;
}

/** The prepared request in the envelope its upstream takes (see `ProviderKind.envelope`). */
function envelop(prepared: Prepared, route: Route, envelope: NonNullable<ProviderKind['envelope']>): Prepared {
  // A passthrough body is parsed again only for a call the kind wraps (Bedrock's Chat endpoint takes its body as it is).
  let parsed = prepared.json;
  const call = {
    protocol: prepared.protocol,
    operation: prepared.operation,
    headers: prepared.headers,
    get json(): Record<string, unknown> {
      if (parsed === undefined) parsed = JSON.parse(prepared.body.toString('utf8')) as Record<string, unknown>;
      return parsed;
    },
  };
  const out = envelope(route.target.provider, call);
  if (out === undefined) return prepared;
  let { warnings } = prepared;
  if (out.dropped.length > 0) {
    // A translation's list is the one its answer's header reads; either is kept as small as warn() keeps it.
    const list = prepared.translation ? prepared.translation.ctx : { warnings: [...(warnings ?? [])] };
    for (const phrase of out.dropped) warn(list, phrase);
    warnings = list.warnings;
  }
  return { ...prepared, headers: out.headers, json: out.json, body: Buffer.from(JSON.stringify(out.json)), warnings };
}

function prepareBody(r: ModelRequest, route: Route): Prepared {
  const { plan, target } = route;
  const protocol = plan.upstreamProtocol;
  const headers = upstreamHeaders(r.ctx.req.headers, protocol);
  // A request of a capped group that names no output limit goes with the cap (see group-caps.ts).
  const cap = outputCapToAdd(r.group, r.protocol, r.operation, r.body.get);
  if (!plan.translator) {
    const module = protocols[protocol];
    const stripped = module.stripSeals?.(r.raw, r.body.get);
    // Taking seals out is rare (a model switch): that request is sent re-serialised rather than as it came.
    const renamed = stripped
      ? Buffer.from(JSON.stringify(named(module, stripped.body, target.upstreamModel)))
      : module.modelInPath
        ? r.raw
        : renameModel(r.raw, r.body.get(), target.upstreamModel, r.modelAt);
    const warnings = stripped ? [`${stripped.dropped} thinking block(s) sealed for another provider`] : undefined;
    let body = renamed;
    if (cap !== undefined) {
      const json = stripped?.body ?? r.body.get();
      const field = outputCapField(r.protocol, providerKind(target.provider.type).dialect);
      // A field inside an object (Gemini's `generationConfig.maxOutputTokens`) cannot be spliced in at the root: re-serialised.
      body = field.includes('.') || module.modelInPath
        ? Buffer.from(JSON.stringify(named(module, withAsk(json, field, cap), target.upstreamModel)))
        : addNumberField(renamed, json, field, cap, target.upstreamModel);
    }
    // One object, made once: every passthrough request prepares one (docs/performance.md, "A small request's allocations").
    return { protocol, operation: r.operation, model: target.upstreamModel, headers, body, json: undefined, translation: undefined, warnings };
  }
  const callerBody = cap === undefined ? r.body.get() : withAsk(r.body.get(), outputCapField(r.protocol, 'translated'), cap);
  // A Responses answer the caller may refer to later is stored (src/responses-store).
  const keep = keeping(r, callerBody);
  const ctx = translateContext(r, route, keep !== undefined);
  // A compaction the upstream protocol does not offer is performed by the gateway with the model (src/compact).
  const translator = r.operation === 'compact' ? compactingTranslator(plan.translator) : plan.translator;
  const json = translator.request(callerBody, ctx);
  return {
    protocol,
    // count_tokens on a translated route is answered locally (handle.ts): what is sent is a create.
    operation: 'create',
    model: target.upstreamModel,
    headers,
    body: Buffer.from(JSON.stringify(json)),
    json,
    translation: { translator, ctx, callerBody, stream: r.info.stream, keep },
    warnings: ctx.warnings,
  };
}

/** A protocol that names the model in the path sends the body without one: the provider puts it in the URL. */
function named(module: ProtocolModule, body: Record<string, unknown>, model: string): Record<string, unknown> {
  return module.modelInPath ? body : { ...body, model };
}

function translateContext(r: ModelRequest, route: Route, stored: boolean): TranslateContext {
  const { target } = route;
  return {
    ...(stored ? { stored: true } : {}),
    ...(route.dropReasoning ? { reasoningUnsupported: true } : {}),
    caller: r.protocol,
    upstream: route.plan.upstreamProtocol,
    requestedModel: r.info.model,
    upstreamModel: target.upstreamModel,
    stream: r.info.stream,
    ...(target.model.maxOutputTokens !== undefined ? { maxOutputTokens: target.model.maxOutputTokens } : {}),
    ...(target.model.thinking !== undefined ? { thinkingStyle: target.model.thinking } : {}),
    upstreamDialect: providerKind(target.provider.type).dialect,
    now: Date.now,
    newId: (prefix) => `${prefix}${randomBytes(12).toString('hex')}`,
    seal: r.ctx.deps.seal,
    warnings: [],
    toolNames: new Map(),
  };
}

/*
 * The client headers that go upstream. An allow-list, so the client's credentials, cookies and
 * hop-by-hop headers never leave the gateway; each protocol's own headers (its module's
 * `upstreamHeaders`) go only to an upstream of that protocol.
 */
const COMMON = ['accept', 'user-agent'] as const;

interface PassedOn {
  readonly names: readonly string[];
  readonly defaults: readonly (readonly [string, string])[];
}

/** Per upstream protocol, once: the caller headers it gets, and what it gets when the caller sent none. */
const passedOn = {} as Record<Protocol, PassedOn>;
for (const p of PROTOCOLS) {
  const { forward, defaults } = protocols[p].upstreamHeaders;
  passedOn[p] = { names: [...COMMON, ...forward], defaults: Object.entries(defaults) };
}

export function upstreamHeaders(client: IncomingHttpHeaders, upstream: Protocol): Record<string, string> {
  const out: Record<string, string> = { 'content-type': 'application/json' };
  const { names, defaults } = passedOn[upstream];
  for (const name of names) {
    const value = client[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(',') : value;
  }
  for (const [name, value] of defaults) out[name] ??= value;
  return out;
}
