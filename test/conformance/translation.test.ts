/**
 * The conformance suite: every scenario (scenarios.ts), through every caller → upstream pair of the
 * protocol list, end to end: the caller's official SDK (callers.ts) → the gateway → a fake upstream
 * speaking the other protocol (upstreams.ts), which answers the scenario in its own wire format. Each
 * (pair, scenario) test sends the scenario whole and streamed, and checks for each call
 *   1. what the upstream received still says what the caller asked (decoded back to IR),
 *   2. what the caller's SDK parsed says what the upstream answered (decoded back to IR),
 * then 3. that the stream, folded by the SDK, says what the whole answer said.
 * Known losses are listed per pair in `lossy` with the reason.
 */
import { describe, expect, it } from 'vitest';
import { PROTOCOLS, type Protocol } from '#src/protocols/types.js';
import { codecs } from '#src/translate/codecs.js';
import { responseToEvents } from '#src/translate/common/ir-stream.js';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '#src/translate/types.js';
import { callers } from './callers.js';
import { contextFor } from './context.js';
import { scenarios, type Scenario } from './scenarios.js';
import { answerWith, modelOn, protocolGateway, receivedRequest, upstreams } from './upstreams.js';

const PAIRS = PROTOCOLS.flatMap((caller) => PROTOCOLS.filter((u) => u !== caller).map((upstream) => [caller, upstream] as const));

/** The gateway's model name served by the provider speaking `upstream`. */

// ------------------------------------------------------------------ normalisation

type Part = Record<string, unknown>;

/** The comparable essence of a response: merged text, tool calls with parsed arguments, reasoning text, stop, usage. */
function essence(res: Ir.Response, opts: { reasoning: boolean }) {
  const parts: Part[] = [];
  for (const p of res.content) {
    if (p.type === 'text') {
      const last = parts.at(-1);
      if (last?.type === 'text') last.text = String(last.text) + p.text;
      else parts.push({ type: 'text', text: p.text });
    } else if (p.type === 'tool_call') {
      parts.push({ type: 'tool_call', id: p.id, name: p.name, arguments: JSON.parse(p.arguments || '{}') as unknown });
    } else if (p.type === 'reasoning') {
      if (opts.reasoning) parts.push({ type: 'reasoning', text: p.text || (p.summary ?? []).join('') });
    } else {
      parts.push({ type: p.type, text: p.text });
    }
  }
  return {
    parts,
    stopReason: res.stopReason,
    usage: { input: res.usage.inputTokens, output: res.usage.outputTokens, cacheRead: res.usage.cacheReadTokens ?? 0 },
  };
}

/** The comparable essence of a request, as the upstream received it. */
function requestEssence(req: Ir.Request, opts: { isError: boolean }) {
  const content = (m: Ir.Message) =>
    m.content.map((p) => {
      switch (p.type) {
        case 'text':
          return { type: 'text', text: p.text };
        case 'image':
          return { type: 'image', source: p.source.kind };
        case 'tool_call':
          return { type: 'tool_call', id: p.id, name: p.name, arguments: JSON.parse(p.arguments) as unknown };
        case 'tool_result':
          return {
            type: 'tool_result',
            callId: p.callId,
            text: p.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(''),
            ...(opts.isError && p.isError ? { isError: true } : {}),
          };
        default:
          return { type: p.type };
      }
    });
  return {
    system: req.system.map((s) => s.text).join('\n\n'),
    messages: req.messages.map((m) => ({ role: m.role, content: content(m) })),
    tools: req.tools.map((t) => ({ name: t.name, parameters: t.parameters })),
    responseFormat: req.responseFormat?.type,
    reasoning: req.reasoning !== undefined,
  };
}

/** Where a pair cannot carry something both ends of the scenario use. */
function lossy(caller: Protocol, upstream: Protocol) {
  return {
    // Only Messages marks a tool result as an error; Chat and Responses have no such flag (dropped with a warning).
    isError: caller === 'messages' && upstream === 'messages',
    // An Anthropic caller can only be given thinking that carries an Anthropic signature; reasoning from an
    // OpenAI upstream is dropped (never turned into text). Chat callers get it as reasoning_content only when
    // the SDK keeps that non-standard field, which the stream helper does not.
    // A Gemini caller is shown thoughts as thought parts; reasoning from another vendor (Messages, Responses,
    // a Chat server's reasoning_content) also rides sealed on the next part, so that it comes back whole when
    // the client drops thought parts, and a reader without the gateway's key reads that as no reasoning.
    reasoning: (stream: boolean) =>
      caller === 'responses' ||
      (caller === 'gemini' && upstream === 'gemini') ||
      (caller === 'messages' && upstream === 'messages') ||
      (caller === 'chat' && !stream),
  };
}

// ------------------------------------------------------------------ the suite

const suite = protocolGateway();

describe.each(PAIRS)('%s -> %s', (caller, upstream) => {
  const client = callers[caller];
  const loss = lossy(caller, upstream);

  /** One call through the gateway, checked (1 and 2); returns the answer as the caller's SDK parsed it, in IR. */
  async function call(scenario: Scenario, stream: boolean): Promise<Ir.Response> {
    const mode = stream ? 'streamed' : 'whole';
    suite.upstream.once(answerWith(upstream, scenario.response));
    const parsed = await client.send(suite.gateway.url, { ...scenario.request, model: modelOn(upstream) }, stream);

    // 1. The upstream received the scenario's request.
    const receivedIr = receivedRequest(upstream, suite.upstream.last());
    expect(receivedIr.model, mode).toBe('upstream-model');
    expect(requestEssence(receivedIr, { isError: loss.isError }), mode).toEqual(requestEssence(scenario.request, { isError: loss.isError }));
    if (scenario.request.maxOutputTokens !== undefined) expect(receivedIr.maxOutputTokens, mode).toBe(scenario.request.maxOutputTokens);

    // 2. The caller's SDK parsed the scenario's answer.
    const answerIr = client.read(parsed);
    const reasoning = loss.reasoning(stream);
    expect(essence(answerIr, { reasoning }), mode).toEqual(essence(scenario.response, { reasoning }));
    expect(answerIr.model, mode).toBe(modelOn(upstream));
    // Reasoning the caller cannot carry is dropped, never shown as text.
    const allText = answerIr.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
    for (const p of scenario.response.content) if (p.type === 'reasoning') expect(allText, mode).not.toContain(p.text);
    return answerIr;
  }

  it.each(scenarios)('$name, whole and streamed', async (scenario) => {
    const whole = await call(scenario, false);
    const streamed = await call(scenario, true);
    // 3. Stream and whole agree, on what both can carry.
    const reasoning = loss.reasoning(false) && loss.reasoning(true);
    expect(essence(streamed, { reasoning })).toEqual(essence(whole, { reasoning }));
  });

  it('an upstream error before the answer reaches the caller in its own shape', async () => {
    suite.upstream.once((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify(upstreams[upstream].rateLimited));
    });
    const err = await client.send(suite.gateway.url, { ...scenarios[0]!.request, model: modelOn(upstream) }, true).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(client.RateLimitError);
    expect((err as Error).message).toContain('Too many requests, slow down');
  });

  it('an upstream dying mid-stream ends the caller’s stream with an error', async () => {
    suite.upstream.once((req, res) => {
      const encoder = codecs[upstream].encodeStream({ ...contextFor(upstream), requestedModel: 'upstream-model' }, req.json as Json);
      const events = responseToEvents(scenarios[0]!.response).slice(0, 3);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(events.map((e) => encoder.push(e)).join(''));
      setTimeout(() => res.destroy(), 20);
    });
    const outcome = await client.send(suite.gateway.url, { ...scenarios[0]!.request, model: modelOn(upstream) }, true).then(
      (v) => ({ ok: true as const, value: v }),
      (e: unknown) => ({ ok: false as const, error: e }),
    );
    // The SDK either throws, or (Responses 6.x helper) resolves with a failed response; never a silent success.
    if (outcome.ok) expect(outcome.value.status).toBe('failed');
    else expect(String((outcome.error as Error).message ?? outcome.error)).toMatch(/broke off/);
  });
});
