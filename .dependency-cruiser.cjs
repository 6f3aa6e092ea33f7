// Import boundaries of the service (docs/architecture.md "Layers"), checked by `npm run lint`.
// Each rule is one sentence of that section; a violation fails lint and so CI. Package paths are
// matched as `(^|/)node_modules/` because a worktree's node_modules may be a symlink that resolves
// outside the project.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circle anywhere in src/, workflows/ or activities/.',
      from: { path: '^(src|workflows|activities)/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'src/domain imports nothing of the project outside itself, and no I/O library.',
      from: { path: '^src/domain/' },
      to: {
        pathNot: '^src/domain/',
        path: '^(src|workflows|activities|tools|test)/|(^|/)node_modules/(pg|kysely|@electric-sql|@temporalio|hono|@hono|pino)/',
      },
    },
    {
      name: 'domain-no-node-io',
      severity: 'error',
      comment: 'src/domain does no I/O: no file system, network or process modules.',
      from: { path: '^src/domain/' },
      to: { dependencyTypes: ['core'], path: '^(fs|fs/promises|net|http|https|http2|child_process|dgram|dns|tls|worker_threads)$' },
    },
    {
      name: 'workflows-import-domain-and-contracts',
      severity: 'error',
      comment: 'A workflow body imports only src/domain, workflow contracts, workflows/shared/ (deterministic helpers) and the Temporal workflow SDK.',
      from: { path: '^workflows/', pathNot: '^workflows/index\\.ts$' },
      to: {
        pathNot: '^src/domain/|^workflows/[^/]+\\.contract\\.ts$|^workflows/shared/|(^|/)node_modules/@temporalio/(workflow|common)/',
      },
    },
    {
      name: 'only-contracts-outside-workflows',
      severity: 'error',
      comment: 'Core, activities, src/temporal and the rest import a workflow contract, never a workflow body.',
      from: { path: '^(src|activities)/' },
      to: { path: '^workflows/', pathNot: '^workflows/[^/]+\\.contract\\.ts$' },
    },
    {
      name: 'core-not-api',
      severity: 'error',
      comment: 'src/core never imports src/api (the API is an adapter over the core, not the other way round).',
      from: { path: '^src/(core|domain|db|temporal|sandbox)/' },
      to: { path: '^src/api/' },
    },
    {
      name: 'core-through-gateway',
      severity: 'error',
      comment: 'src/core reaches Temporal only through the gateway modules in src/temporal, never @temporalio/client.',
      from: { path: '^src/core/' },
      to: { path: '(^|/)node_modules/@temporalio/client/' },
    },
    {
      name: 'wire-is-pure',
      comment: 'src/wire/ (per-surface renderers of domain objects, shared by src/core event delivery and src/api) imports only src/domain/ and src/wire/ (docs/architecture.md "Layers").',
      severity: 'error',
      from: { path: '^src/wire/' },
      to: { path: '^(src/(?!domain/|wire/)|workflows/|activities/|tools/|test/)|(^|/)node_modules/' },
    },
    {
      name: 'rails-below-core',
      severity: 'error',
      comment: 'Rail adapters (src/rails) talk to rails, not to our database, Temporal or surfaces: core passes them what they need (docs/rails.md "The seam").',
      from: { path: '^src/rails/' },
      to: { path: '^src/(core|db|api|temporal|main)/|^activities/|^workflows/|(^|/)node_modules/(kysely|pg|@temporalio)/' },
    },
    {
      name: 'core-through-rail-seam',
      severity: 'error',
      comment: 'src/core reaches rails only through the rail module interface and the registry (src/rails/adapter.ts, src/rails/registry.ts; docs/architecture.md "Seams"): never a rail module folder, the shared file-rail module, the SFTP transport or a statement parser (camt.053, BAI2). test/unit/seams-boundaries.test.ts runs this rule too.',
      from: { path: '^src/core/' },
      to: { path: '^src/rails/', pathNot: '^src/rails/(adapter|registry)\\.ts$' },
    },
    {
      name: 'seam-modules-not-config',
      severity: 'error',
      comment: 'A seam module never imports src/config.ts: the loader merges the modules\' settings (src/seams/registry.ts), and a module reads its own parsed settings from what it is handed (docs/architecture.md "Seams").',
      from: { path: '^src/(rails|seams|solana|rates)/' },
      to: { path: '^src/config\\.ts$' },
    },
    {
      name: 'core-not-sandbox',
      severity: 'error',
      comment: 'The sandbox is adapters the core is handed at composition (src/core/context.ts SandboxAdapters, built by src/sandbox/adapters.ts in src/main/runtime.ts; docs/sandbox.md "Adapters"): nothing under src/core imports src/sandbox.',
      from: { path: '^src/core/' },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'notification-providers-below-core',
      severity: 'error',
      comment: 'Notification provider modules (src/notifications, docs/notifications.md "The seam") talk to providers only: they are handed their settings and never import src/config.ts, the core, the database, Temporal, a surface or the sandbox.',
      from: { path: '^src/notifications/' },
      to: { path: '^src/(core|db|api|temporal|main|sandbox)/|^src/config\\.ts$|^activities/|^workflows/|(^|/)node_modules/(kysely|pg|@temporalio)/' },
    },
    {
      name: 'live-rates-not-sandbox',
      severity: 'error',
      comment: 'Live rates never come from the sandbox table: outside src/sandbox only the composition (src/sandbox/adapters.ts hands the table to the core as the sandbox environment\'s rate source, docs/rates.md "The seam") imports src/sandbox/fx.ts, and src/api/examples.ts, which computes the OpenAPI documents\' example figures (documentation, never a price) from the sandbox table.',
      from: { path: '^(src|workflows|activities)/', pathNot: '^src/sandbox/|^src/api/examples\\.ts$' },
      to: { path: '^src/sandbox/fx\\.ts$' },
    },
    {
      name: 'rate-sources-below-core',
      severity: 'error',
      comment: 'Rate-source adapters (src/rates) talk to rate sources, not to our database, Temporal or surfaces: src/core/rates stores and serves what they fetch.',
      from: { path: '^src/rates/' },
      to: { path: '^src/(core|db|api|temporal|main|sandbox)/|^activities/|^workflows/|(^|/)node_modules/(kysely|pg|@temporalio)/' },
    },
    {
      name: 'activities-over-core',
      severity: 'error',
      comment: 'Activities are thin adapters over the core: no API, no database driver or query builder of their own.',
      from: { path: '^activities/' },
      to: { path: '^src/api/|(^|/)node_modules/(kysely|pg)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
