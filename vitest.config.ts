import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The summary reporter prints the closing `N passed, N failed` line CI reads.
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Type drift tests (`*.test-d.ts`) run under tsc: a type that no longer fits fails the run like any test.
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'], tsconfig: './tsconfig.test-d.json' },
  },
});
