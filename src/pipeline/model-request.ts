/**
 * A request to a model endpoint (create, count_tokens) once its body is read, inspected and its
 * primary route found: what preparing and the attempts work from.
 */
import type { CallAbort } from '../providers/abort.js';
import type { Route, RouteAsk } from '../routing/route.js';
import type { ByteBudget, RequestContext } from './context.js';

/**
 * The context of a request that reached its attempts: its byte budget and its controller, which the
 * context holds from earlier steps on, are there by then; the type says so, so nothing copies them.
 */
export type ModelContext = RequestContext & {
  /** Aborted when the client goes away, or with a GatewayError when the total time runs out. */
  readonly controller: CallAbort;
  /** The request's share of the gateway's buffered bytes, which an answer read whole counts against too. */
  readonly budget: ByteBudget;
};

export interface ModelRequest extends RouteAsk {
  readonly ctx: ModelContext;
  /** The caller's bytes, as read. */
  readonly raw: Buffer;
  /** Where the caller's `model` value sits in `raw`, when parsing found that already. */
  readonly modelAt: [number, number] | undefined;
  /** The route for the requested model; the fallbacks are found only if it fails. */
  readonly primary: Route;
}

/** The context once its body is read (the budget) and its upstream calls may start (the controller, set here). */
export function modelContext(ctx: RequestContext, controller: CallAbort): ModelContext {
  const { budget } = ctx;
  if (budget === undefined) throw new Error('a model request starts after its body was read within a budget');
  ctx.controller = controller;
  return ctx as ModelContext;
}
