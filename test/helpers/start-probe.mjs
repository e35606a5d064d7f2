/**
 * Preloaded into a gateway process by test/e2e/start-memory.test.ts (`node --import`): records every module the
 * process resolves, and on SIGUSR2 writes them with V8's heap figures to the file in START_PROBE_OUT.
 */
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { getHeapSpaceStatistics } from 'node:v8';

const resolved = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => resolved.add(url));
port1.unref();
register('./start-probe-hooks.mjs', { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] });

const require = createRequire(import.meta.url);
process.on('SIGUSR2', () => {
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]));
  // Packages reached only through require() (CommonJS inside CommonJS) are in require's cache.
  const modules = [...resolved, ...Object.keys(require.cache)];
  writeFileSync(process.env.START_PROBE_OUT, JSON.stringify({ modules, spaces }));
});
