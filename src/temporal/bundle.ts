/**
 * Workflow bundles (docs/architecture.md "Workflow ids and task queues"). The TypeScript SDK runs workflows from one
 * webpack bundle of workflows/index.ts. Bundling inside the worker process raises its peak RSS by
 * about 110 MiB (128 -> 234 MiB measured, webpack's heap, kept by the process for its whole life)
 * and takes about 10 s of its CPU, so the worker never bundles itself: `prepareWorkflowBundle`
 * either takes a bundle built ahead of time (`WORKFLOW_BUNDLE`, e.g. `npm run bundle:workflows`
 * in a Docker build) or builds one in a short-lived child process and hands its path to
 * `Worker.create({ workflowBundle: { codePath } })`.
 *
 * Run as a script (`tsx src/temporal/bundle.ts <out.js>`), it writes the bundle to `<out.js>`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

/** Path of the workflows entry point (workflows/index.ts). */
export const WORKFLOWS_PATH = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));
const THIS_FILE = fileURLToPath(import.meta.url);

const noop = () => {};
/** webpack's statistics only on error (the SDK logs them at INFO otherwise). */
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: console.error };

/**
 * Bundles workflows/index.ts in this process and writes the code to `outFile` (atomically: a
 * reader never sees half a file). Adds about 110 MiB of peak RSS: call it from a short-lived process.
 * Throws webpack's error when a workflow does not compile.
 */
export async function writeWorkflowBundle(outFile: string): Promise<string> {
  const out = resolve(outFile);
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger });
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  writeFileSync(tmp, code);
  renameSync(tmp, out);
  return out;
}

/**
 * The workflow bundle the worker should load: `prebuilt` (from `WORKFLOW_BUNDLE`) when given and
 * present, else a fresh bundle written to `outFile` by a child process (about 10 s on 2 cores).
 * Returns `{ codePath }` for `Worker.create({ workflowBundle })`. Throws if a given `prebuilt`
 * does not exist or the child process fails (its stderr is in the message).
 */
export async function prepareWorkflowBundle(opts: { outFile: string; prebuilt?: string }): Promise<{ codePath: string }> {
  if (opts.prebuilt) {
    const path = resolve(opts.prebuilt);
    if (!existsSync(path)) throw new Error(`WORKFLOW_BUNDLE=${opts.prebuilt} does not exist (build it with npm run bundle:workflows)`);
    return { codePath: path };
  }
  const out = resolve(opts.outFile);
  await new Promise<void>((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', THIS_FILE, out], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (b) => {
      stderr = (stderr + String(b)).slice(-10_000);
    });
    child.once('error', fail);
    child.once('exit', (code) => (code === 0 ? done() : fail(new Error(`bundling workflows failed (exit ${code}):\n${stderr}`))));
  });
  return { codePath: out };
}

if (process.argv[1] && resolve(process.argv[1]) === THIS_FILE) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: tsx src/temporal/bundle.ts <out.js>');
    process.exit(2);
  }
  await writeWorkflowBundle(out);
}
