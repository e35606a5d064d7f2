/**
 * `check --probe`: every provider called for real, through the gateway's own provider
 * code (endpoints, credentials, undici pools, timeout mapping), with tiny time-bounded
 * requests. Per model: does it answer, does it stream, does it call a forced tool. The
 * results say which declared features the provider refused; nothing here prints.
 */
import { DEFAULT_SERVER_LIMITS } from '../config/schema.js';
import type { Config, ModelConfig, ProviderConfig } from '../config/types.js';
import { PROTOCOLS, type Protocol } from '../protocols/types.js';
import { providerKind } from '../providers/kinds.js';
import { createProviders } from '../providers/registry.js';
import { findModel } from '../routing/resolve-model.js';
import { planUpstream } from '../translate/plan.js';
import { providerForModel } from '../providers/model-protocols.js';
import { call, ping, type Outcome } from './probe-call.js';
import { callsTool, cutShort, replyBody, streamError, toolBody } from './probe-requests.js';

/**
 * ok: worked. refused: the provider said no to a declared feature (4xx). failed: broke
 * another way. inconclusive: answered, but the output cap hides the outcome. skipped: not
 * tried (an earlier step failed, or nothing to try). undeclared: the model does not declare
 * the feature, so clients cannot use it and it is not tried.
 */
export type Verdict = 'ok' | 'refused' | 'failed' | 'inconclusive' | 'skipped' | 'undeclared';

export interface Check {
  readonly verdict: Verdict;
  readonly detail?: string;
}

export interface ModelProbe {
  readonly model: ModelConfig;
  /** The model name sent upstream; undefined when the model was not tried. */
  readonly sentAs: string | undefined;
  /** The upstream protocol the probe spoke. */
  readonly protocol: Protocol | undefined;
  readonly reply: Check;
  readonly stream: Check;
  readonly tools: Check;
}

export interface ProviderProbe {
  readonly provider: ProviderConfig;
  /** ok once anything answered over HTTP. */
  readonly reachable: Check;
  /** ok once an answer other than 401/403 came back; skipped when no credential is configured and none was asked for. */
  readonly credential: Check;
  readonly models: readonly ModelProbe[];
}

/** What to send for one model entry: its exact name, or a representative name for a glob. */
export interface ProbeTarget {
  readonly model: ModelConfig;
  /** The upstream model name, or undefined with `reason` when a glob has no name to try. */
  readonly upstream: string | undefined;
  readonly reason?: string;
}

const ok: Check = { verdict: 'ok' };
const skipped = (detail?: string): Check => (detail === undefined ? { verdict: 'skipped' } : { verdict: 'skipped', detail });

/**
 * The names to try, per provider. A glob is tried only with a name the config itself gives:
 * an exact name in a key group that this glob serves, or its fixed `upstreamModel`. Guessing
 * names would probe models nobody configured.
 */
export function probeTargets(config: Config): Map<string, ProbeTarget[]> {
  const byProvider = new Map<string, ProbeTarget[]>([...config.providers.keys()].map((id) => [id, []]));
  for (const model of [...config.models.values(), ...config.modelGlobs]) {
    let target: ProbeTarget;
    if (!model.isGlob) target = { model, upstream: model.upstreamModel ?? model.pattern };
    else if (model.upstreamModel !== undefined) target = { model, upstream: model.upstreamModel };
    else {
      const named = [...config.keyGroups.values()]
        .flatMap((g) => g.models)
        .find((name) => !name.includes('*') && !name.includes('?') && findModel(config, name) === model);
      target =
        named !== undefined
          ? { model, upstream: named }
          : { model, upstream: undefined, reason: 'a glob: no exact name to try (name one in a key group, or give the model an upstreamModel)' };
    }
    byProvider.get(model.provider)?.push(target);
  }
  return byProvider;
}

/**
 * How many callers of another protocol the gateway would translate into each protocol the provider
 * speaks, were the caller's own not among them: the protocols that lose least for most callers
 * (`planUpstream`'s preference) count highest.
 */
function translationPull(provider: ProviderConfig): Map<Protocol, number> {
  const pull = new Map<Protocol, number>();
  for (const caller of PROTOCOLS) {
    const others = new Set([...provider.protocols].filter((p) => p !== caller));
    if (others.size === 0) continue;
    const up = planUpstream(caller, { ...provider, protocols: others }).upstreamProtocol;
    pull.set(up, (pull.get(up) ?? 0) + 1);
  }
  return pull;
}

/** The upstream protocol most of a model's allowed inbound protocols will reach it in. */
export function probeProtocol(model: ModelConfig, provider: ProviderConfig): Protocol {
  const counts = new Map<Protocol, number>();
  for (const inbound of model.protocols) {
    const up = planUpstream(inbound, provider).upstreamProtocol;
    counts.set(up, (counts.get(up) ?? 0) + 1);
  }
  // Ties go to the richer protocols: the ones translation prefers.
  const pull = translationPull(provider);
  const score = (p: Protocol, of: Map<Protocol, number>) => of.get(p) ?? 0;
  const [best] = PROTOCOLS.filter((p) => provider.protocols.has(p)).sort(
    (a, b) => score(b, counts) - score(a, counts) || score(b, pull) - score(a, pull),
  );
  // The config schema requires a provider to speak at least one protocol.
  if (best === undefined) throw new Error(`provider '${provider.id}' speaks no protocol`);
  return best;
}

/** The provider with every timeout capped at the probe's. */
function bounded(provider: ProviderConfig, timeoutMs: number): ProviderConfig {
  const cap = (ms: number) => Math.min(ms, timeoutMs);
  const t = provider.timeouts;
  return {
    ...provider,
    timeouts: { connectMs: cap(t.connectMs), headersMs: cap(t.headersMs), idleMs: cap(t.idleMs), totalMs: cap(t.totalMs) },
  };
}

const isCredentialRefusal = (o: Outcome): boolean => o.kind === 'http' && (o.status === 401 || o.status === 403);

/** A declared feature's probe outcome: a 4xx is the provider refusing it; anything else broken is a failure. */
function featureCheck(o: Outcome, judge: (o: Extract<Outcome, { kind: 'json' | 'stream' }>) => Check): Check {
  switch (o.kind) {
    case 'json':
    case 'stream':
      return judge(o);
    case 'http':
      return { verdict: o.status >= 400 && o.status < 500 ? 'refused' : 'failed', detail: o.detail };
    case 'not-stream':
      return { verdict: 'failed', detail: `answered a streaming request with ${o.contentType}, not a stream` };
    case 'unreachable':
    case 'timeout':
    case 'bad':
      return { verdict: 'failed', detail: o.detail };
  }
}

const judgeStream =
  (protocol: Protocol) =>
  (o: Extract<Outcome, { kind: 'json' | 'stream' }>): Check => {
    if (o.kind !== 'stream') return { verdict: 'failed', detail: 'not a stream' };
    const error = streamError(protocol, o.events);
    if (error !== undefined) return { verdict: 'failed', detail: `the stream carried an error: ${error}` };
    if (o.events.length === 0) return { verdict: 'failed', detail: 'the stream was empty' };
    return o.finished ? ok : { verdict: 'failed', detail: 'the stream ended before its proper end event' };
  };

const judgeTools =
  (protocol: Protocol) =>
  (o: Extract<Outcome, { kind: 'json' | 'stream' }>): Check => {
    if (o.kind !== 'json') return { verdict: 'failed', detail: 'not a JSON answer' };
    if (callsTool(protocol, o.json)) return ok;
    if (cutShort(protocol, o.json)) return { verdict: 'inconclusive', detail: 'stopped at the output cap before calling the tool' };
    return { verdict: 'failed', detail: 'answered without calling the tool that tool_choice forced' };
  };

/** Enough of a Config for `createProviders`, which reads only `providers`. */
const emptyConfig: Config = {
  server: { host: '127.0.0.1', port: 0, maxBodyBytes: 0, ...DEFAULT_SERVER_LIMITS, maxConnections: undefined, allowedHosts: [] },
  inspector: { keep: 0, memoryMiB: 0, history: false, bodiesPerSecond: 0 },
  providers: new Map(),
  models: new Map(),
  modelGlobs: [],
  keyGroups: new Map(),
  keys: new Map(),
};

export interface ProbeOptions {
  readonly timeoutMs: number;
}

export async function probeProvider(config: ProviderConfig, targets: readonly ProbeTarget[], options: ProbeOptions): Promise<ProviderProbe> {
  const { timeoutMs } = options;
  const providerConfig = bounded(config, timeoutMs);
  const noKeyNeeded = providerKind(config.type).describe.credential === undefined;
  let reachable: Check = noKeyNeeded ? ok : skipped();
  let credential: Check = noKeyNeeded ? skipped('not needed') : skipped();
  // Any HTTP answer proves the provider reachable; any but 401/403 proves the credential (or its absence) accepted.
  const sawAnswer = (o: Outcome) => {
    if (o.kind === 'unreachable' || o.kind === 'timeout') return;
    reachable = ok;
    if (!noKeyNeeded && !isCredentialRefusal(o)) credential = ok;
  };

  const tried = targets.filter((t) => t.upstream !== undefined);
  if (tried.length === 0 && !noKeyNeeded) {
    const o = await ping(config, timeoutMs);
    if (o === undefined) {
      // A kind with no model list (Bedrock, Vertex, Foundry) is reached only through a model: nothing is proven.
      reachable = skipped('no model list to ask; name a model to probe it');
      credential = skipped();
    } else {
      sawAnswer(o);
      if (o.kind === 'unreachable' || o.kind === 'timeout') reachable = { verdict: 'failed', detail: o.detail };
      else if (isCredentialRefusal(o)) credential = { verdict: 'refused', detail: o.kind === 'http' ? o.detail : '' };
      else if (o.kind === 'http') credential = skipped(`GET /models answered ${o.detail}; no model to try`);
    }
  }

  const [provider] = createProviders({ ...emptyConfig, providers: new Map([[config.id, providerConfig]]) }).values();
  const models: ModelProbe[] = [];
  try {
    for (const target of targets) {
      const { model, upstream } = target;
      const undeclared = (f: 'streaming' | 'tools'): Check | undefined => (model.features.has(f) ? undefined : { verdict: 'undeclared' });
      if (upstream === undefined) {
        models.push({ model, sentAs: undefined, protocol: undefined, reply: skipped(target.reason), stream: skipped(), tools: skipped() });
        continue;
      }
      const protocol = probeProtocol(model, providerForModel(config, upstream));
      const blocked = reachable.verdict === 'failed' ? 'provider unreachable' : credential.verdict === 'refused' ? 'credential refused' : undefined;
      if (blocked !== undefined) {
        models.push({ model, sentAs: upstream, protocol, reply: skipped(blocked), stream: skipped(), tools: skipped() });
        continue;
      }

      const first = await call(provider!, protocol, replyBody(protocol, config.type, upstream, false), timeoutMs);
      sawAnswer(first);
      let reply: Check;
      if (first.kind === 'json') reply = ok;
      else if (first.kind === 'unreachable') {
        reachable = { verdict: 'failed', detail: first.detail };
        reply = skipped('provider unreachable');
      } else if (isCredentialRefusal(first)) {
        credential = { verdict: 'refused', detail: first.kind === 'http' ? first.detail : '' };
        reply = skipped('credential refused');
      } else if (first.kind === 'http' && first.status === 404) reply = { verdict: 'failed', detail: `model not found (${first.detail})` };
      else reply = { verdict: 'failed', detail: 'detail' in first ? first.detail : 'unexpected answer' };

      if (reply.verdict !== 'ok') {
        models.push({ model, sentAs: upstream, protocol, reply, stream: undeclared('streaming') ?? skipped(), tools: undeclared('tools') ?? skipped() });
        continue;
      }
      const stream =
        undeclared('streaming') ??
        featureCheck(await call(provider!, protocol, replyBody(protocol, config.type, upstream, true), timeoutMs), judgeStream(protocol));
      const tools =
        undeclared('tools') ?? featureCheck(await call(provider!, protocol, toolBody(protocol, config.type, upstream), timeoutMs), judgeTools(protocol));
      models.push({ model, sentAs: upstream, protocol, reply, stream, tools });
    }
  } finally {
    await provider!.close();
  }
  return { provider: config, reachable, credential, models };
}

/** One line per problem: an unreachable provider, a refused credential, a model that failed, a declared feature refused. */
export function problemsOf(probe: ProviderProbe): string[] {
  const id = probe.provider.id;
  const out: string[] = [];
  // The transport's messages already name the provider ("Provider 'x' is unreachable at ...").
  if (probe.reachable.verdict === 'failed') out.push(probe.reachable.detail ?? `Provider '${id}' is unreachable.`);
  if (probe.credential.verdict === 'refused') out.push(`${id}: credential refused (${probe.credential.detail ?? ''}); check providers.${id}.apiKey`);
  for (const m of probe.models) {
    const name = m.model.pattern;
    if (m.reply.verdict === 'failed') out.push(`${name}: ${m.reply.detail ?? 'no answer'}`);
    for (const [feature, check] of [['streaming', m.stream], ['tools', m.tools]] as const) {
      if (check.verdict === 'refused') out.push(`${name}: declares "${feature}" but ${id} refused it: ${check.detail ?? ''}`);
      else if (check.verdict === 'failed') out.push(`${name}: declares "${feature}" but it failed: ${check.detail ?? ''}`);
    }
  }
  return out;
}
