// `npm run check:cycles`: fails when any module in src/, test/ or bench/ imports
// itself through others. Type-only imports count, since a cycle of types still
// ties the two files' designs together.
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Move what both sides need into a module that both import.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // src/ tests import test/ helpers, so the two are one graph; bench/ is its own.
    // Packages stay out of it.
    includeOnly: '^(src|test|bench)/',
    doNotFollow: { path: 'node_modules' },
    // Keep `import type` and type-only specifiers in the graph.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    cache: false,
  },
};
