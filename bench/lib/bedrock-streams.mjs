/**
 * What decoding Bedrock's event-stream costs a stream: one gateway process takes 50 concurrent
 * Messages streams from its anthropic provider (server-sent events, passed through) and from its
 * bedrock provider (the same events as event-stream `chunk` messages, decoded to server-sent
 * events), in the order anthropic, bedrock, bedrock, anthropic, each with a warm-up and a window.
 * Both providers sit on the same fake upstream and stream the same events, so the ratio of their
 * CPU per stream is the decoding's share (and the envelope's: a bedrock request's body is rewrapped,
 * an anthropic one's only has `model` renamed). Bedrock is called with an API key (bearer): SigV4 is
 * not measured here.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { smallMessages } from './bodies.mjs';
import { loadPhase } from './phases.mjs';
import { GATEWAY_KEY } from './targets.mjs';

/** The model each provider serves in the bench's config (bench/lib/targets.mjs). */
export const BEDROCK_PAIR_MODELS = { anthropic: 'claude-bench', bedrock: 'bench-bedrock' };

const HEADERS = { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01', 'user-agent': 'Anthropic/JS 0.137.0' };

/** The two request bodies, written once into `dir`. */
export function bedrockPairBodies(dir) {
  const out = {};
  for (const [provider, model] of Object.entries(BEDROCK_PAIR_MODELS)) {
    out[provider] = join(dir, `messages-stream-${provider}.json`);
    writeFileSync(out[provider], JSON.stringify(smallMessages(model, true)));
  }
  return out;
}

/**
 * The A-B-B-A measurement on `target` (a gateway with both providers). `warmMs` before each first
 * window, `secondWarmMs` before each second (fresh connections), `measureMs` split between a side's
 * two windows. Returns CPU µs per stream of each side (both windows together), their ratio, and
 * each window's own figures.
 */
export async function bedrockPair(ctx, target, bodies, { warmMs, secondWarmMs, measureMs }) {
  const half = Math.round(measureMs / 2);
  const phase = (provider, warmupMs) =>
    loadPhase(ctx, target, {
      mode: 'requests',
      path: '/v1/messages',
      headers: HEADERS,
      bodyFile: bodies[provider],
      stream: true,
      kind: 'messages',
      concurrency: 50,
      warmupMs,
      durationMs: half,
    });
  const a1 = await phase('anthropic', warmMs);
  const b1 = await phase('bedrock', warmMs);
  const b2 = await phase('bedrock', secondWarmMs);
  const a2 = await phase('anthropic', secondWarmMs);
  const side = (x, y) => {
    const streams = x.completed + y.completed;
    return {
      cpuUs: ((x.sutCpuS + y.sutCpuS) * 1e6) / streams,
      streams,
      failed: x.failed + y.failed,
      windowsCpuUs: [x, y].map((w) => (w.sutCpuS * 1e6) / w.completed),
      // CLOCK_MONOTONIC µs of each window, to cut it out of a CPU profile (bench/sequence.mjs).
      windows: [x.window, y.window],
      windowStreams: [x.completed, y.completed],
      busy: x.coreBusyPct,
      errorSamples: [...x.errors.samples, ...y.errors.samples],
    };
  };
  const anthropic = side(a1, a2);
  const bedrock = side(b1, b2);
  return { anthropic, bedrock, ratio: bedrock.cpuUs / anthropic.cpuUs };
}
