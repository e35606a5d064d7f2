/**
 * Cache usage across every pair: each upstream's own cache fields (test/helpers/cache-usage-families.ts), whole and
 * streamed, reach each caller protocol in the caller's own fields, through the codecs as the gateway
 * joins them, and the log reads the same counts. On passthrough the caller gets the upstream's fields
 * as they are; only the log has to read them.
 */
import { describe, expect, it } from 'vitest';
import { protocols } from '#src/protocols/registry.js';
import { PROTOCOLS } from '#src/protocols/types.js';
import { translatorFor } from '#src/translate/registry.js';
import type { Usage } from '#src/protocols/types.js';
import { translateContext } from '../helpers/translate-context.js';
import { answerUsage, callerBodies, callerCounts, type Counts, families, sseEvents, streamedAnswer, streamUsage, toldTo, wholeAnswer } from '../helpers/cache-usage-families.js';

/** What the log takes, in the same terms as the expectations. */
const logged = (u: Usage | undefined): Counts => ({
  input: u?.inputTokens ?? 0,
  output: u?.outputTokens ?? 0,
  cacheRead: u?.cachedTokens ?? 0,
  cacheWrite: u?.cacheWriteTokens ?? 0,
});

const cases = families.flatMap((family) => PROTOCOLS.map((caller) => [family.name, caller, family] as const));

describe.each(cases)('%s usage to a %s caller', (_name, caller, family) => {
  const ctx = () =>
    translateContext({
      caller,
      upstream: family.upstream,
      requestedModel: 'm',
      upstreamModel: 'upstream-model',
      upstreamDialect: family.upstream === 'messages' ? 'anthropic' : 'compatible',
    });
  const translator = translatorFor(caller, family.upstream);

  it('whole', () => {
    const upstreamBody = wholeAnswer(family);
    const body = translator ? translator.response(upstreamBody, ctx(), callerBodies[caller](false)) : upstreamBody;
    if (translator) expect(callerCounts[caller](answerUsage(caller, body))).toEqual(toldTo(caller, family.expected));
    // The log reads the upstream's own answer, translated or not (pipeline/relay/whole.ts).
    expect(logged(protocols[family.upstream].usage(upstreamBody))).toEqual(family.expected);
  });

  it('streamed', () => {
    const upstreamStream = streamedAnswer(family);
    if (!translator) {
      const watch = protocols[caller].watchStream();
      for (const event of sseEvents(upstreamStream)) watch.onEvent(event);
      expect(logged(watch.usage)).toEqual(family.expected);
      return;
    }
    const translation = translator.stream(ctx(), callerBodies[caller](true));
    let out = '';
    for (const event of sseEvents(upstreamStream)) out += translation.push(event);
    out += translation.end();
    expect(callerCounts[caller](streamUsage[caller](out))).toEqual(toldTo(caller, family.expected));
    // The log of a translated stream takes the finish's usage.
    const u = translation.usage;
    expect(u && { input: u.inputTokens, output: u.outputTokens, cacheRead: u.cacheReadTokens ?? 0, cacheWrite: u.cacheWriteTokens ?? 0 }).toEqual(family.expected);
  });
});
