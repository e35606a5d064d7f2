/**
 * zod, as every module of the gateway imports it (`test/repo/zod-import.test.ts`). The build writes this module's
 * output as zod bundled without its locales (`scripts/bundle-zod.mjs`), which the gateway never uses: a start then
 * loads one module for zod instead of its hundred and its 64 locales (docs/performance.md, "Memory at start").
 */
export { z } from 'zod';
