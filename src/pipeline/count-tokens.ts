/**
 * `count_tokens` on a route whose provider does not speak the caller's protocol (it has no counter
 * for it). Claude Code counts before it compacts, so a count that is confidently wrong makes it compact
 * late. In order: the upstream's own counter, for a provider kind that has one (`countsInputTokens`)
 * in the route's upstream protocol (its module's `counter`: the request translated as it would be
 * sent, then put in the shape the counter takes); else the local estimate (of the request as Messages,
 * which the estimator reads); or, when the model's `countTokens` is `off`, a 404, on which Claude Code
 * estimates itself. A counter that fails leaves the estimate (or the 404) to answer: a count is never
 * worth failing the client's turn. The request counted and the answer are in the caller's protocol's
 * shapes (its module's `counting`).
 */
import { randomBytes } from 'node:crypto';
import { notFound } from '../errors.js';
import { estimateInputTokens } from '../protocols/messages/estimate-tokens.js';
import type { Counter, Counting } from '../protocols/protocol.js';
import { protocols } from '../protocols/registry.js';
import type { Protocol } from '../protocols/types.js';
import { CallAbort } from '../providers/abort.js';
import { providerKind } from '../providers/kinds.js';
import type { Route } from '../routing/route.js';
import { sendJson } from '../server/respond.js';
import { translatorFor } from '../translate/registry.js';
import { abortIfLeft } from './attempts.js';
import type { RequestContext } from './context.js';
import { answeredLocally, attemptAnswered, attemptFailed, attemptStarted, routeChosen, upstreamChunk } from './events.js';

/** The counter's answer is a few bytes; more than this is not one. */
const COUNT_ANSWER_LIMIT = 64 * 1024;

/** A count to answer: the caller's protocol, the route it would take, and the caller's request. */
export interface CountAsk {
  readonly caller: Protocol;
  readonly route: Route;
  readonly body: Readonly<Record<string, unknown>>;
}

/** The caller protocol's count_tokens shapes; a protocol without them has no count endpoint to get here by. */
function countingOf(caller: Protocol): Counting {
  const counting = protocols[caller].counting;
  if (counting === undefined) throw new RangeError(`the ${caller} protocol has no count_tokens`);
  return counting;
}

/** The counter the route's upstream has, if its kind counts and its protocol has a counter. */
function counterOf(route: Route): Counter | undefined {
  if (!providerKind(route.target.provider.type).countsInputTokens) return undefined;
  return protocols[route.plan.upstreamProtocol].counter;
}

/** Answers a count on a translated route; a promise when an upstream counter is asked. */
export function answerCount(ctx: RequestContext, ask: CountAsk): Promise<void> | undefined {
  const { caller, route } = ask;
  const counting = countingOf(caller);
  const counter = counterOf(route);
  if (counter !== undefined) {
    return countUpstream(ctx, ask, counter).then((count) => {
      if (count === undefined) answerLocally(ctx, ask);
      else if (!ctx.res.destroyed) sendJson(ctx.res, 200, counting.answer(count), {}, ctx.record);
    });
  }
  answerLocally(ctx, ask);
  return undefined;
}

function answerLocally(ctx: RequestContext, ask: CountAsk): void {
  const { caller, route } = ask;
  answeredLocally(ctx.record, route.target.provider.id);
  if (route.target.model.countTokens === 'off') {
    throw notFound(`Token counting is off for model '${route.name}'; estimate locally.`);
  }
  if (ctx.res.destroyed) return;
  const asMessages = translated(ctx, ask, 'messages');
  const answer = countingOf(caller).answer(estimateInputTokens(asMessages));
  sendJson(ctx.res, 200, answer, { 'x-model-gateway-token-estimate': 'true' }, ctx.record);
}

/** The request counted (the caller's `counting.request`), in `upstream`'s protocol, as a create would be sent. */
function translated(ctx: RequestContext, { caller, route, body }: CountAsk, upstream: Protocol): Readonly<Record<string, unknown>> {
  const counted = countingOf(caller).request(body as Record<string, unknown>);
  const translator = translatorFor(caller, upstream);
  if (!translator) return { ...counted, model: route.target.upstreamModel };
  return translator.request(counted, {
    caller,
    upstream,
    requestedModel: route.name,
    upstreamModel: route.target.upstreamModel,
    upstreamDialect: providerKind(route.target.provider.type).dialect,
    now: Date.now,
    newId: (prefix) => `${prefix}${randomBytes(12).toString('hex')}`,
    seal: ctx.deps.seal,
    warnings: [],
    toolNames: new Map(),
  });
}

/** The upstream's count of the request as it would be sent; undefined when the counter did not give one. */
async function countUpstream(ctx: RequestContext, ask: CountAsk, counter: Counter): Promise<number | undefined> {
  const { route } = ask;
  const upstream = route.plan.upstreamProtocol;
  const model = route.target.upstreamModel;
  const asked = { protocol: upstream, operation: 'count_tokens' as const, json: counter.ask(translated(ctx, ask, upstream), model), headers: { 'content-type': 'application/json' } };
  // An upstream that takes its protocol's bodies in an envelope of its own takes its counts in it too (Vertex's Gemini counter).
  const { json, headers } = providerKind(route.target.provider.type).envelope?.(route.target.provider, asked) ?? asked;
  const bytes = Buffer.from(JSON.stringify(json));
  // The log and the inspector show the count as a call to the counter, like any upstream attempt.
  routeChosen(ctx.record, route, undefined);
  // A client that left while its body was read asks nothing of the counter.
  if (ctx.res.destroyed) return undefined;
  attemptStarted(ctx.record, route, { headers, body: bytes });
  const controller = new CallAbort();
  ctx.controller = controller;
  ctx.cleanups.push(abortIfLeft);
  const timer = setTimeout(() => controller.abort(), route.target.provider.timeouts.totalMs);
  try {
    const answer = await route.provider.send({
      protocol: upstream,
      operation: 'count_tokens',
      headers,
      body: bytes,
      json,
      model,
      stream: false,
      maxResponseBytes: COUNT_ANSWER_LIMIT,
      signal: controller.signal,
      abort: controller,
    });
    attemptAnswered(ctx.record, answer);
    if (answer.whole) upstreamChunk(ctx.record, answer.whole);
    if (answer.status !== 200 || !answer.whole) {
      answer.body.destroy();
      return undefined;
    }
    return counter.read(JSON.parse(answer.whole.toString('utf8')));
  } catch (err) {
    // Unreachable, timed out, or not JSON: the estimate answers instead.
    attemptFailed(ctx.record, route, err);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
