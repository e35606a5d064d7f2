// Process entry. Kept tiny and free of top-level await so it bundles to CJS for the binary.
import { run } from './cli/main.js';

void run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
