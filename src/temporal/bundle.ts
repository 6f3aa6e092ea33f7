/** Workflow bundles, never built in the worker (webpack holds ~110 MiB for the process's life); `tsx src/temporal/bundle.ts <out.js>` writes one. */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));
const THIS_FILE = fileURLToPath(import.meta.url);

const noop = () => {};
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: console.error };

/** `code` with its inline source map's `sourcesContent` dropped: stacks still map to file and line, and each worker holds about 1.5 MB less. */
export function withoutSourcesContent(code: string): string {
  const at = code.lastIndexOf('//# sourceMappingURL=data:');
  const base64 = at > 0 ? code.indexOf('base64,', at) : -1;
  if (base64 < 0) return code;
  const map = JSON.parse(Buffer.from(code.slice(base64 + 'base64,'.length).trimEnd(), 'base64').toString());
  delete map.sourcesContent;
  return `${code.slice(0, base64 + 'base64,'.length)}${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
}

/** Bundles workflows/index.ts into `outFile` (atomically), in this process. Throws webpack's error. */
export async function writeWorkflowBundle(outFile: string): Promise<string> {
  const out = resolve(outFile);
  const code = withoutSourcesContent((await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger })).code);
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  writeFileSync(tmp, code);
  renameSync(tmp, out);
  return out;
}

/** `{ codePath }`: `prebuilt` when given, else a bundle a child process writes to `outFile`. Throws if either fails. */
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
