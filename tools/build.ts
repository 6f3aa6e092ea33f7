/**
 * `npm run build`: the production build (docs/operations.md "Running compiled JavaScript").
 * Writes, under `dist/`:
 *
 * - `dist/main/api.js`, `dist/main/worker.js`, `dist/main/admin.js` (and shared `chunk-*.js`): the
 *   service's TypeScript bundled by esbuild into ES modules for Node (^22.12 or 24), npm packages
 *   left as imports of node_modules, with linked source maps (`node --enable-source-maps` to use
 *   them). `npm start` and the Dockerfile run these with plain `node`: no transpiler at run time.
 * - `dist/workflow-bundle.js`: the Temporal workflow bundle (src/temporal/bundle.ts), which the
 *   compiled worker loads (`WORKFLOW_BUNDLE`) instead of bundling at start.
 *
 * `import.meta.url` and `import.meta.dirname` in a source file are rewritten to that source
 * file's own location, so code that finds files relative to itself (src/temporal/binaries.ts,
 * src/rails/iso20022/schemas.ts, src/api/docs.ts) behaves as under tsx. Exits non-zero on any
 * build error.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { writeWorkflowBundle } from '../src/temporal/bundle';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'dist');
/**
 * Node flags of every production API and worker process, the one place they are set
 * (docs/operations.md "Node flags"): the build writes them to `dist/node-flags` (one line), which
 * `npm start`, `npm run start:worker`, the Dockerfile and docker-compose.yml put before the entry
 * point; tools/stack passes them to the processes it starts. `--max-semi-space-size` is in MiB.
 */
export const PRODUCTION_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/**
 * Environment of every production API and worker process, set with {@link PRODUCTION_NODE_FLAGS}
 * (docs/operations.md "Node flags"): the build writes it to `dist/node-env` (`NAME=value`
 * words on one line), which the same launchers pass through `env`; tools/stack sets it under the
 * caller's own environment (so `MALLOC_ARENA_MAX=8 npm run bench` overrides it).
 */
export const PRODUCTION_NODE_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

/** The processes a deployment runs (src/main). */
export const ENTRY_POINTS = ['api', 'worker', 'admin'];

/** Rewrites `import.meta.url` / `import.meta.dirname` of each project source file to its own location. */
const sourceLocation: Plugin = {
  name: 'source-location',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${'/'}node_modules${'/'}`)) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.')) return { contents: text, loader: 'ts' };
      const contents = text
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(join(args.path, '..')));
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * Bundles the entry points of {@link ENTRY_POINTS} into `outDir` (it must sit inside the project,
 * so the bundles' package imports resolve from its node_modules). Throws esbuild's error.
 */
export async function buildServices(outDir: string): Promise<void> {
  await build({
    entryPoints: ENTRY_POINTS.map((e) => join(ROOT, 'src', 'main', `${e}.ts`)),
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22.12',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [sourceLocation],
  });
}

async function main(): Promise<void> {
  const t0 = performance.now();
  rmSync(OUT, { recursive: true, force: true });
  await buildServices(join(OUT, 'main'));
  writeFileSync(join(OUT, 'node-flags'), `${PRODUCTION_NODE_FLAGS.join(' ')}\n`);
  writeFileSync(join(OUT, 'node-env'), `${Object.entries(PRODUCTION_NODE_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}\n`);
  const t1 = performance.now();
  const bundle = await writeWorkflowBundle(join(OUT, 'workflow-bundle.js'));
  const t2 = performance.now();
  console.log(`built ${ENTRY_POINTS.map((e) => `dist/main/${e}.js`).join(', ')} in ${((t1 - t0) / 1000).toFixed(1)} s; ${relative(ROOT, bundle)} in ${((t2 - t1) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
