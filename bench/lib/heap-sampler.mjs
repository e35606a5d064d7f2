/**
 * Preloaded with `--import` into the process bench/alloc.mjs measures: V8's sampling heap profiler, driven by
 * SIGUSR2 (BENCH_HEAP_INCLUDE_MINOR=0: without the objects scavenges collected). The first signal starts sampling (after the warm-up, so the window holds no start-up or JIT-time
 * allocation) and writes `<out>.started`; the second writes the profile to `<out>` and stops. Objects already
 * collected stay in the profile (both `includeObjectsCollectedBy*` flags), so it counts what was allocated, not
 * what survived. Settings come from the environment: BENCH_HEAP_PROFILE_OUT, BENCH_HEAP_SAMPLING_INTERVAL (bytes).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const out = process.env.BENCH_HEAP_PROFILE_OUT;
const samplingInterval = Number(process.env.BENCH_HEAP_SAMPLING_INTERVAL ?? '256');
/** `0`: objects a scavenge collected are dropped, so what is left is what reached the old generation. */
const minor = process.env.BENCH_HEAP_INCLUDE_MINOR !== '0';

if (out) {
  const session = new Session();
  session.connect();
  const post = (method, params) =>
    new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  let started = false;
  process.on('SIGUSR2', () => {
    const step = started
      ? post('HeapProfiler.getSamplingProfile').then(({ profile }) => {
          // Written aside and renamed, so that the reader, polling for the file, never sees half of it.
          writeFileSync(`${out}.part`, JSON.stringify(profile));
          renameSync(`${out}.part`, out);
          return post('HeapProfiler.stopSampling');
        })
      : post('HeapProfiler.startSampling', {
          samplingInterval,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: minor,
        }).then(() => writeFileSync(`${out}.started`, ''));
    started = true;
    step.catch((e) => process.stderr.write(`heap sampler: ${e.message}\n`));
  });
}
