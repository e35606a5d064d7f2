/**
 * A request to a model endpoint (create, count_tokens) once its body is read, inspected and its
 * primary route found: what preparing and the attempts work from.
 */
import type { CallAbort } from '../providers/abort.js';
import type { Route, RouteAsk } from '../routing/route.js';
import type { ByteBudget, RequestContext } from './context.js';

export interface ModelRequest extends RouteAsk {
  readonly ctx: RequestContext;
  /** The caller's bytes, as read. */
  readonly raw: Buffer;
  /** Where the caller's `model` value sits in `raw`, when parsing found that already. */
  readonly modelAt: [number, number] | undefined;
  /** The route for the requested model; the fallbacks are found only if it fails. */
  readonly primary: Route;
  /** The context's controller: aborted when the client goes away, or with a GatewayError when the total time runs out. */
  readonly controller: CallAbort;
  /** The context's share of the gateway's buffered bytes, which an answer read whole counts against too. */
  readonly budget: ByteBudget;
}
