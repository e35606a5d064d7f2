/**
 * `count_tokens` on a route whose provider does not speak Messages (it has no Messages counter).
 * Claude Code counts before it compacts, so a count that is confidently wrong makes it compact
 * late. In order: the upstream's own counter, for a provider kind that has one (`countsInputTokens`:
 * the request translated to a Responses request, as it would be sent); else the local estimate; or, when the model's
 * `countTokens` is `off`, a 404, on which Claude Code estimates itself. A counter that fails
 * leaves the estimate (or the 404) to answer: a count is never worth failing the client's turn.
 */
import { randomBytes } from 'node:crypto';
import { notFound } from '../errors.js';
import { estimateInputTokens } from '../protocols/messages/estimate-tokens.js';
import type { Protocol } from '../protocols/types.js';
import { CallAbort } from '../providers/abort.js';
import { providerKind } from '../providers/kinds.js';
import { inputTokensBody, readInputTokens } from '../protocols/responses/input-tokens.js';
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

/** Answers a count on a translated route; a promise when an upstream counter is asked. */
export function answerCount(ctx: RequestContext, ask: CountAsk): Promise<void> | undefined {
  const { route, body } = ask;
  if (providerKind(route.target.provider.type).countsInputTokens) {
    return countUpstream(ctx, ask).then((count) => {
      if (count === undefined) answerLocally(ctx, route, body);
      else if (!ctx.res.destroyed) sendJson(ctx.res, 200, { input_tokens: count }, {}, ctx.record);
    });
  }
  answerLocally(ctx, route, body);
  return undefined;
}

function answerLocally(ctx: RequestContext, route: Route, body: Readonly<Record<string, unknown>>): void {
  answeredLocally(ctx.record, route.target.provider.id);
  if (route.target.model.countTokens === 'off') {
    throw notFound(`Token counting is off for model '${route.name}'; estimate locally.`);
  }
  if (ctx.res.destroyed) return;
  sendJson(ctx.res, 200, { input_tokens: estimateInputTokens(body) }, { 'x-model-gateway-token-estimate': 'true' }, ctx.record);
}

/** The upstream's count of the request as it would be sent; undefined when the counter did not give one. */
async function countUpstream(ctx: RequestContext, { caller, route, body }: CountAsk): Promise<number | undefined> {
  const translator = translatorFor(caller, 'responses');
  const translated = translator
    ? translator.request(body, {
        caller,
        upstream: 'responses',
        requestedModel: route.name,
        upstreamModel: route.target.upstreamModel,
        upstreamDialect: providerKind(route.target.provider.type).dialect,
        now: Date.now,
        newId: (prefix) => `${prefix}${randomBytes(12).toString('hex')}`,
        seal: ctx.deps.seal,
        warnings: [],
        toolNames: new Map(),
      })
    : { ...body, model: route.target.upstreamModel };
  const json = inputTokensBody(translated as Record<string, unknown>);
  const bytes = Buffer.from(JSON.stringify(json));
  const headers = { 'content-type': 'application/json' };
  // The log and the inspector show the count as a call to the counter, like any upstream attempt.
  const facts = { name: route.name, target: route.target, plan: { upstreamProtocol: 'responses' as const, translator: true } };
  routeChosen(ctx.record, facts, undefined);
  // A client that left while its body was read asks nothing of the counter.
  if (ctx.res.destroyed) return undefined;
  attemptStarted(ctx.record, facts, { headers, body: bytes });
  const controller = new CallAbort();
  ctx.controller = controller;
  ctx.cleanups.push(abortIfLeft);
  const timer = setTimeout(() => controller.abort(), route.target.provider.timeouts.totalMs);
  try {
    const answer = await route.provider.send({
      protocol: 'responses',
      operation: 'count_tokens',
      headers,
      body: bytes,
      json,
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
    return readInputTokens(JSON.parse(answer.whole.toString('utf8')));
  } catch (err) {
    // Unreachable, timed out, or not JSON: the estimate answers instead.
    attemptFailed(ctx.record, facts, err);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
