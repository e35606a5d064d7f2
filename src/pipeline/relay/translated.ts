/**
 * Translated streams: the upstream's events decoded from its protocol and encoded into the
 * caller's as they arrive (see translate/). A translator that fails, or an upstream event it
 * cannot read, still ends the caller's stream properly, with the caller's error frame.
 */
import type { GatewayError } from '../../errors.js';
import type { Usage } from '../../protocols/types.js';
import { passBackHeaders } from '../../providers/response-headers.js';
import type { UpstreamResponse } from '../../providers/types.js';
import { keepFromStream, type Keeping } from '../../responses-store/keep.js';
import { createSseDecoder } from '../../sse/parse.js';
import type { StreamTranslation } from '../../translate/translator.js';
import type { RelayContext, Translation } from './context.js';
import { droppedHeader } from './dropped.js';
import type { StreamTransform } from './pump.js';

/**
 * The one place the head of a translated answer is made: the upstream's ids and rate-limit hints,
 * the gateway's own (which translation, what it dropped or approximated so far) and the content type
 * of what the caller gets.
 */
export function translatedHeaders(upstream: UpstreamResponse, t: Translation, contentType: string): Record<string, string> {
  const { 'content-type': _type, ...headers } = passBackHeaders(upstream.headers);
  headers['x-model-gateway-translated'] = `${t.ctx.caller}->${t.ctx.upstream}`;
  const dropped = droppedHeader(t.ctx.warnings);
  if (dropped !== undefined) headers['x-model-gateway-dropped'] = dropped;
  headers['content-type'] = contentType;
  return headers;
}

class Translated implements StreamTransform {
  readonly status = 200;
  readonly unchanged = false;
  broken: string | undefined = undefined;
  private readonly decoder = createSseDecoder();

  constructor(
    readonly headers: Record<string, string>,
    private readonly stream: StreamTranslation,
    private readonly about: { readonly providerId: string; readonly keep: Keeping | undefined },
  ) {}

  push(events: Buffer): string {
    let out = '';
    try {
      for (const event of this.decoder.push(events)) out += this.stream.push(event);
    } catch (err) {
      return out + this.untranslatable(err);
    }
    // Stored before it goes out, so the caller's next request finds it.
    if (this.about.keep && this.stream.finished) keepFromStream(this.about.keep, out);
    return out;
  }

  follow(): void {}

  end(rest: Buffer): string {
    let out = '';
    try {
      for (const event of this.decoder.push(rest)) out += this.stream.push(event);
      for (const event of this.decoder.end()) out += this.stream.push(event);
    } catch (err) {
      return out + this.untranslatable(err);
    }
    // The translation's end() closes an unfinished stream with the caller's error frame itself.
    if (!this.stream.finished) this.broken = `Provider '${this.about.providerId}' ended the stream before it was complete.`;
    const last = out + this.stream.end();
    if (this.about.keep && this.stream.finished) keepFromStream(this.about.keep, last);
    return last;
  }

  fail(err: GatewayError): string {
    return this.stream.fail(err.message);
  }

  usage(): Usage | undefined {
    const usage = this.stream.usage;
    if (!usage) return undefined;
    return {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      ...(usage.cacheReadTokens ? { cachedTokens: usage.cacheReadTokens } : {}),
      ...(usage.cacheWriteTokens ? { cacheWriteTokens: usage.cacheWriteTokens } : {}),
    };
  }

  private untranslatable(err: unknown): string {
    this.broken = `translation failed: ${err instanceof Error ? err.message : String(err)}`;
    return this.stream.fail(`The gateway could not translate the stream from provider '${this.about.providerId}'.`);
  }
}

export function translatedStream(ctx: RelayContext, upstream: UpstreamResponse, t: Translation): StreamTransform {
  const headers = translatedHeaders(upstream, t, 'text/event-stream; charset=utf-8');
  return new Translated(headers, t.translator.stream(t.ctx, t.callerBody), { providerId: ctx.provider.id, keep: t.keep });
}
