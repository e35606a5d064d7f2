#!/usr/bin/env node
/**
 * `node bench/import-rss.mjs [--runs 3] [module ...]`: the RSS a bare `node` gains by importing each module, alone,
 * read 1 s after the import as the benchmark reads a gateway's idle RSS; the median of `--runs` fresh processes,
 * less a bare process's own. A module is a package name as the gateway imports it, or a path from the repository
 * (`dist/cost/catalogue.js`, after `npm run build`); several joined with `+` are imported in that order in one
 * process (`undici+zod` against `undici+dist/config/zod.js`: what one costs after the other). Without modules: the
 * packages a gateway may load, and the gateway's own entry with everything it imports.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { argv, option } from './lib/args.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(option('runs', '3'));
const DEFAULT = [
  'undici',
  'zod',
  'dist/config/zod.js',
  'ws',
  'chalk',
  'commander',
  'cosmiconfig',
  '@pydantic/genai-prices',
  'ioredis',
  'prom-client',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-proto',
  'google-auth-library',
  '@aws-sdk/credential-providers',
  '@smithy/signature-v4',
  'ora',
  'dist/cli/main.js',
];
const given = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--runs');
const modules = given.length > 0 ? given : DEFAULT;

/** The child: imports each of its arguments in order (none: nothing), waits 1 s, prints its VmRSS in kB. */
const CHILD = `
for (const spec of process.argv.slice(1)) await import(spec);
await new Promise((r) => setTimeout(r, 1000));
const kb = /^VmRSS:\\s+(\\d+)/m.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))[1];
process.stdout.write(kb);
`.replace('require(', "(await import('node:module')).createRequire(import.meta.url)(");

/** `specs`: the modules to import, in order. */
function rssKb(specs) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, ...specs], { cwd: REPO, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`importing ${specs.join(' then ') || 'nothing'} failed: ${r.stderr}`);
  return Number(r.stdout);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sample = (specs) => median(Array.from({ length: runs }, () => rssKb(specs)));

const bare = sample([]);
process.stderr.write(`bare node: ${(bare / 1024).toFixed(1)} MB\n`);
const result = { bareMb: bare / 1024, gainMb: {} };
for (const m of modules) {
  const spec = m.split('+').map((one) => (one.startsWith('dist/') || one.startsWith('./') ? pathToFileURL(join(REPO, one)).href : one));
  const gain = (sample(spec) - bare) / 1024;
  result.gainMb[m] = Math.round(gain * 10) / 10;
  process.stderr.write(`${m.padEnd(42)} +${gain.toFixed(1)} MB\n`);
}
process.stdout.write(`${JSON.stringify(result)}\n`);
