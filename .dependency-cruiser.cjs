// The layering of src/, checked by `npm run lint:layers` (CI runs it right after lint). Arrows point
// down: the root files (main, app.module, app.setup) wire everything; features import the shared
// layers under them (cache, database, config, common); at the bottom the pure folders hold
// the rules and readers that need no Nest, TypeORM, pg or HTTP.
//
// Imports are read before compilation (tsPreCompilationDeps), so `import type` counts: a type-only
// import upward ties the folders as much as any other.
//
// The one rule dependency-cruiser cannot say alone, no cycle between top-level folders through any
// of their files, is checked by scripts/folder-cycles.mjs over this same cruise collapsed to
// `src/<folder>`; the `no-folder-cycle` rule below catches the cycles it sees folder by folder.

/** The folders that stay pure: plain TypeScript over plain values. */
const PURE = '^src/(access|resolver|policy|package|client|skill-index)/';

/**
 * npm packages a pure folder may use: `yaml` reads a SKILL.md's frontmatter in the package reader,
 * which the sandbox client shares. Anything added here must load no framework, driver or server.
 */
const PURE_NPM = '^node_modules/(yaml)/';

/** The infrastructure every feature stands on: settings, the database, the change caches. */
const INFRA = '^src/(config|database|cache)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'pure-imports-pure',
      comment:
        'access, resolver, policy, package, client and skill-index import only each other, node: builtins and ' +
        'the short list of pure npm packages above: their tests need no Nest, no database, no dist/.',
      severity: 'error',
      from: { path: PURE },
      to: { pathNot: [PURE, PURE_NPM], dependencyTypesNot: ['core'] },
    },
    {
      name: 'common-imports-no-feature',
      comment:
        'common/ (errors, filter, pipes, limits, logging, request metrics) is the edge every feature ' +
        'uses: it imports only itself and the pure folders, never a feature, config or the database.',
      severity: 'error',
      from: { path: '^src/common/' },
      to: { path: '^src/', pathNot: ['^src/common/', PURE] },
    },
    {
      name: 'infrastructure-imports-no-feature',
      comment:
        'config, database and cache sit under every feature: they import each other (one way: see ' +
        'no-folder-cycle), common and the pure folders, never a feature.',
      severity: 'error',
      from: { path: INFRA },
      to: { path: '^src/', pathNot: [INFRA, '^src/common/', PURE] },
    },
    {
      name: 'no-root-import',
      comment: 'main, app.module and app.setup wire the app: no folder imports them.',
      severity: 'error',
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/[^/]+[.]ts$' },
    },
    {
      name: 'no-folder-cycle',
      comment: 'Two folders never import each other, directly or through others.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycle',
      comment: 'Nor do two files.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: '^node_modules/' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // `node:` builtins and package entry points as Node resolves them for CommonJS output.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['require', 'node', 'default'] },
  },
};
