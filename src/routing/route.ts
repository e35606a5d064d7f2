/**
 * Routes: a model a request may be served by (the one asked for, then its fallbacks), resolved
 * to a provider, an upstream model and an upstream protocol, with the plan to get there
 * (passthrough or a translator), and checked against what the caller's key group may do.
 */
import { authorizeFeatures, authorizeModel } from '../auth/authorize.js';
import type { KeyGroupConfig } from '../config/types.js';
import { GatewayError, invalidRequest } from '../errors.js';
import type { GatewayState } from '../pipeline/context.js';
import type { BodyTree } from '../pipeline/body-tree.js';
import { protocols } from '../protocols/registry.js';
import { type Feature, PROTOCOLS, type Protocol, type RequestInfo } from '../protocols/types.js';
import type { Operation, Provider } from '../providers/types.js';
import { planUpstream, type Plan } from '../translate/plan.js';
import { providerForModel } from '../providers/model-protocols.js';
import type { Price } from '../cost/price.js';
import { priceOf } from '../cost/prices.js';
import { resolveModel, type Target } from './resolve-model.js';

const REASONING: ReadonlySet<Feature> = new Set(['reasoning']);
const NONE: ReadonlySet<Feature> = new Set();

/** A model the request may be served by, and how it gets there. */
export interface Route {
  /** The gateway model name (the requested one, or a fallback's). */
  readonly name: string;
  readonly target: Target;
  readonly plan: Plan;
  readonly provider: Provider;
  /** Translated to a model without reasoning: the request goes without it. */
  readonly dropReasoning: boolean;
  /** What the route is charged at; undefined: no price known. */
  readonly price: Price | undefined;
}

/** What routing reads of a request: who asks, in which protocol, for what. */
export interface RouteAsk {
  readonly state: GatewayState;
  readonly group: KeyGroupConfig;
  readonly protocol: Protocol;
  readonly operation: Operation;
  readonly info: RequestInfo;
  /** The parsed body, for the checks of what a translated route cannot serve. */
  readonly body: BodyTree;
}

/** The route for the requested model; its errors (404, 403, 400) are the caller's answer. */
export function primaryRoute(ask: RouteAsk): Route {
  return routeTo(ask, ask.info.model);
}

/** The fallbacks this caller may use, in order; one it may not use (or that cannot serve this request) is skipped. */
export function* fallbackRoutes(ask: RouteAsk, primary: Route): Generator<Route> {
  for (const name of primary.target.model.fallbacks) {
    try {
      const route = routeTo(ask, name);
      checkServable(ask, route);
      yield route;
    } catch {
      // Unknown, not allowed for this key group, or unable to serve this request: not a candidate.
    }
  }
}

/**
 * Requests a translated route cannot serve at all, refused before anything is sent: those using a
 * field of the caller's protocol that needs state only its provider keeps (the module's `stateful`).
 */
export function checkServable(ask: Pick<RouteAsk, 'protocol' | 'body' | 'info'>, route: Route): void {
  const stateful = protocols[ask.protocol].stateful;
  if (!route.plan.translator || stateful === undefined) return;
  const body = ask.body.get();
  for (const { field, set, needs } of stateful.fields) {
    if (!set(body[field])) continue;
    throw invalidRequest(
      `${field} needs ${needs}, and model '${ask.info.model}' is served through ` +
        `the ${protocols[route.plan.upstreamProtocol].title} API, which keeps none. ` +
        stateful.instead,
      field,
    );
  }
}

/**
 * The routes a state's requests took, by key group, protocol and model name. Everything about a route but the
 * features a request asks for follows from those, and working it out again (glob matches, the plan, the
 * group's checks) would delay every request's upstream call. A new state (a reload) starts
 * empty. Names come from clients and globs match without end, so each table keeps its first few.
 */
const routeTables = new WeakMap<GatewayState, Map<KeyGroupConfig, Record<Protocol, Map<string, Route>>>>();
const NAMES_PER_TABLE = 256;

function routeTable(ask: RouteAsk): Map<string, Route> {
  let byGroup = routeTables.get(ask.state);
  if (byGroup === undefined) {
    byGroup = new Map();
    routeTables.set(ask.state, byGroup);
  }
  let byProtocol = byGroup.get(ask.group);
  if (byProtocol === undefined) {
    byProtocol = Object.fromEntries(PROTOCOLS.map((p) => [p, new Map<string, Route>()])) as Record<Protocol, Map<string, Route>>;
    byGroup.set(ask.group, byProtocol);
  }
  return byProtocol[ask.protocol];
}

function routeTo(ask: RouteAsk, name: string): Route {
  const table = routeTable(ask);
  let route = table.get(name);
  if (route === undefined) {
    route = makeRoute(ask, name);
    if (table.size < NAMES_PER_TABLE) table.set(name, route);
  }
  const { group, info } = ask;
  // Counting tokens uses no feature: it generates nothing.
  authorizeFeatures(group, route.target.model, name, ask.operation !== 'count_tokens' ? info.features : [], route.dropReasoning ? REASONING : NONE);
  return route;
}

/** Throws what this group may not do with this model in this protocol, whatever the request asks for. */
function makeRoute(ask: RouteAsk, name: string): Route {
  const { state, group, protocol } = ask;
  const target = resolveModel(state.config, name);
  const plan = planUpstream(protocol, providerForModel(target.provider, target.upstreamModel));
  // Claude Code and Codex always ask for reasoning; translated to a model without it, the request goes without.
  const dropReasoning = plan.translator !== undefined && !target.model.features.has('reasoning');
  authorizeModel(group, target.model, name, protocol);
  const provider = state.providers.get(target.provider.id);
  if (!provider) throw new GatewayError('internal', `Provider '${target.provider.id}' is not running.`);
  return { name, target, plan, provider, dropReasoning, price: priceOf(state.config, target) };
}
