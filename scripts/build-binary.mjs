#!/usr/bin/env node
/**
 * `npm run build:binary`: the standalone `model-gateway` executable, with Node's single-executable-application
 * (SEA) support: esbuild bundles the CLI into one CommonJS file, a Node binary turns it into a SEA blob, and
 * postject injects the blob into a copy of that Node binary. Needs only what `npm ci` installs and a Node binary.
 *
 *   node scripts/build-binary.mjs [--node PATH] [--out FILE]
 *
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleInspector } from './build-inspector.mjs';
import { withoutZodLocales } from './bundle-zod.mjs';
import { build } from 'esbuild';
import { inject } from 'postject';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUILD = path.join(ROOT, 'build');
const BUNDLE = path.join(BUILD, 'model-gateway.cjs');
const SEA_CONFIG = path.join(BUILD, 'sea-config.json');
const BLOB = path.join(BUILD, 'sea-prep.blob');
// The fuse string every SEA-capable Node binary carries; postject flips it to say "a blob is injected".
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const HELP = `Usage: node scripts/build-binary.mjs [--node PATH] [--out FILE]

Builds the standalone model-gateway executable (Node single-executable application).

Options:
  --node PATH  the Node binary to build from (default: the node running this script, ${process.execPath});
               it may be another platform's node or node.exe of the same Node version
  --out FILE   where to write the executable (default: build/model-gateway, build/model-gateway.exe for Windows)
  -h, --help   this help
`;

/**
 * In a single executable the main script's `require` loads built-in modules only, and its `import()` throws ("A
 * dynamic import callback was not specified"). Config files written as JavaScript or TypeScript need both: the
 * banner gives the bundle a real `require` and an `import()` on Node's default loader, both resolving packages
 * from the working folder, where a project that keeps its config in TypeScript has `typescript` installed.
 */
const BANNER = `var __configReferrer = require('node:path').join(process.cwd(), 'model-gateway-config-loader.js');
require = require('node:module').createRequire(__configReferrer);
var __configImporter;
function __configImport(specifier) {
  __configImporter ??= new (require('node:vm').Script)('(specifier) => import(specifier)', {
    filename: __configReferrer,
    importModuleDynamically: require('node:vm').constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  }).runInThisContext();
  // Node calls this loader experimental and warns on its first use, which would reach every JS-config user.
  const emitWarning = process.emitWarning;
  process.emitWarning = () => undefined;
  try {
    return __configImporter(specifier);
  } finally {
    process.emitWarning = emitWarning;
  }
}`;

/** Sends cosmiconfig's two `import()` calls (the config file, `typescript`) through the banner's `__configImport`. */
const configImportPlugin = {
  name: 'config-import',
  setup(esbuild) {
    esbuild.onLoad({ filter: /[\\/]cosmiconfig[\\/]dist[\\/]loaders\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const patched = source.replaceAll('await import(', 'await __configImport(');
      const count = source.split('await import(').length - 1;
      // A cosmiconfig release that loads configs differently must be looked at, not silently half-patched.
      if (count !== 2) throw new Error(`expected 2 import() calls in ${args.path}, found ${count}`);
      return { contents: patched, loader: 'js' };
    });
  },
};

/** What kind of executable a Node binary is, from its first bytes. */
function executableFormat(file) {
  const head = Buffer.alloc(4);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') === '\x7fELF') return 'elf';
  if (head.toString('latin1', 0, 2) === 'MZ') return 'pe';
  const magic = head.readUInt32BE(0);
  if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(magic)) return 'macho';
  throw new Error(`${file} is not an executable this script knows (ELF, Mach-O or PE)`);
}

const HOST_FORMAT = { linux: 'elf', darwin: 'macho', win32: 'pe' }[process.platform];

/** The version a Node binary reports, or undefined when it cannot run on this machine. */
function runnableVersion(node) {
  const result = spawnSync(node, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
}

async function timed(label, step) {
  const start = performance.now();
  const value = await step();
  process.stderr.write(`${label.padEnd(10)} ${((performance.now() - start) / 1000).toFixed(1)} s\n`);
  return value;
}

async function main() {
  const { values } = parseArgs({
    options: { node: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const node = path.resolve(values.node ?? process.execPath);
  const format = executableFormat(node);
  const out = path.resolve(values.out ?? path.join(BUILD, format === 'pe' ? 'model-gateway.exe' : 'model-gateway'));
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

  // The blob must be made by the same Node version it is injected into. A binary that runs here makes its own
  // blob, with V8's code cache; for another platform's binary this node makes it, and without the code cache,
  // which only loads on the platform that compiled it.
  const targetVersion = format === HOST_FORMAT ? runnableVersion(node) : undefined;
  const blobMaker = targetVersion !== undefined ? node : process.execPath;
  if (targetVersion === undefined) {
    process.stderr.write(
      `${node} does not run here: making the blob with ${process.execPath} (${process.version}) without the code cache; ` +
        `the two must be the same Node version.\n`,
    );
  }

  mkdirSync(BUILD, { recursive: true });
  const inspector = await timed('inspector', () => bundleInspector());
  await timed('bundle', () =>
    build({
      entryPoints: [path.join(ROOT, 'src/bin.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      outfile: BUNDLE,
      // cosmiconfig loads it lazily for .ts configs only; bundled it would grow the binary by ~9 MB.
      external: ['typescript'],
      // The inspector page and the price catalogue are embedded in the binary: it has no dist/ folder to read them from.
      define: {
        MODEL_GATEWAY_VERSION: JSON.stringify(version),
        MODEL_GATEWAY_INSPECTOR_ASSETS: JSON.stringify(inspector),
        MODEL_GATEWAY_CATALOGUE: JSON.stringify(readFileSync(path.join(ROOT, 'src/cost/catalogue.json'), 'utf8')),
      },
      banner: { js: BANNER },
      plugins: [configImportPlugin, withoutZodLocales],
      // src/version.ts reads `import.meta.url` only when the define above is absent.
      logOverride: { 'empty-import-meta': 'silent' },
      logLevel: 'warning',
    }),
  );

  writeFileSync(
    SEA_CONFIG,
    `${JSON.stringify({ main: BUNDLE, output: BLOB, disableExperimentalSEAWarning: true, useCodeCache: targetVersion !== undefined }, null, 2)}\n`,
  );
  await timed('blob', () => run(blobMaker, ['--experimental-sea-config', SEA_CONFIG]));

  // Unlink first: copying over a binary that is running fails with ETXTBSY.
  rmSync(out, { force: true });
  mkdirSync(path.dirname(out), { recursive: true });
  copyFileSync(node, out);
  chmodSync(out, 0o755);
  // A signed Mach-O whose contents change no longer runs; the signature comes off before and an ad-hoc one goes on after.
  const signMac = format === 'macho' && process.platform === 'darwin';
  if (signMac) run('codesign', ['--remove-signature', out]);
  await timed('postject', async () => {
    try {
      await inject(out, 'NODE_SEA_BLOB', readFileSync(BLOB), { sentinelFuse: SEA_FUSE, machoSegmentName: 'NODE_SEA' });
    } catch (error) {
      throw new Error(`postject: ${error.message} (a Node binary built with a shared libnode has no SEA support)`);
    }
  });
  if (signMac) run('codesign', ['--sign', '-', out]);
  if (format === 'macho' && !signMac) {
    process.stderr.write(`Sign it on a Mac before use (macOS refuses unsigned arm64 binaries): codesign --sign - ${path.basename(out)}\n`);
  }
  if (format === 'pe') {
    process.stderr.write(`The copied node.exe signature no longer matches; sign it with signtool if Windows should trust it.\n`);
  }

  // The binary must at least start and know its version; a broken build fails here, not at a user's.
  if (targetVersion !== undefined) {
    const printed = runnableVersion(out);
    if (printed !== version) throw new Error(`${out} --version printed ${JSON.stringify(printed)}, expected ${version}`);
  }
  const size = (statSync(out).size / 1024 / 1024).toFixed(0);
  process.stderr.write(`built ${path.relative(process.cwd(), out) || out}: model-gateway ${version}, ${size} MB, Node ${targetVersion ?? process.version} (${format})\n`);
}

main().catch((error) => {
  process.stderr.write(`build-binary: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
