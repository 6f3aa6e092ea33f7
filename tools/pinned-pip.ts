/**
 * A hash-pinned Python tool installed from PyPI and run as a child process: the independent NACHA
 * validator (tools/nacha/validator.ts) and the independent BAI2 parser (tools/bai2/validator.ts).
 *
 * An install is `pip install --no-deps --require-hashes --target` into
 * `.tools/<dirName>/py<X.Y>-<first 12 hex of the requirements file's sha256>/` (git-ignored), made
 * in a temporary directory renamed into place, so parallel test files never see a half-installed
 * one; a changed pin or another Python gets its own directory.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = 'installed.json';

/** What a pinned tool is. */
export interface PinnedPipToolSpec {
  /** How messages name it, e.g. `NACHA validator`. */
  label: string;
  /** The pinned library as reports name it, e.g. `achlens 0.1.7 (PyPI, Apache-2.0)`. */
  library: string;
  /** Folder under `.tools/`, e.g. `nacha-validator`. */
  dirName: string;
  /** Absolute path of the hash-pinned requirements file. */
  requirements: string;
  /** Absolute path of the driver script: `python -I driver --lib <install> <file>` prints JSON; exit 1 means "refused". */
  driver: string;
  /** Environment variable naming the interpreter (default `python3`). */
  pythonEnv: string;
  /** Environment variable that, at `1`, turns a skip into a failure (CI sets it). */
  requireEnv: string;
  /** Supported Python versions, `[min, maxExclusive]` as `[major, minor]` pairs; none means any. */
  pythonRange?: [[number, number], [number, number]];
  /** Driver time limit in milliseconds (default 60 s). */
  timeoutMs?: number;
}

/** A pinned tool's operations (see {@link pinnedPipTool}). */
export interface PinnedPipTool {
  /** `.tools/<dirName>` under the repository root. */
  readonly root: string;
  /** Why it cannot run here (no Python, wrong version, no pip), or null. Never throws. */
  unavailable(): string | null;
  /** True (and prints why) when a test file needing the tool should skip: unavailable and `requireEnv` is not `1`. */
  skipWithout(file: string): boolean;
  /** Installs if needed and resolves to the install directory; `force` reinstalls. Throws when Python or pip fails. */
  install(force?: boolean): Promise<string>;
  /** The same install shared by concurrent callers of one process. */
  ensure(): Promise<void>;
  /** Runs the driver on `text` (written to a temporary file) and resolves to its stdout; exit 1 with output is a refusal, not an error. */
  runDriver(text: string, fileName: string): Promise<string>;
  /** Seconds the install took, from its stamp. */
  installSeconds(dir: string): number;
}

/** Builds the operations of one hash-pinned PyPI tool (see the module comment). */
export function pinnedPipTool(spec: PinnedPipToolSpec): PinnedPipTool {
  const root = join(ROOT, '.tools', spec.dirName);
  const python = () => process.env[spec.pythonEnv] || 'python3';
  const versions = new Map<string, string | null>();
  const pythonVersion = (): string | null => {
    const py = python();
    if (!versions.has(py)) {
      try {
        const out = execFileSync(py, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 15_000 });
        versions.set(py, out.trim());
      } catch {
        versions.set(py, null);
      }
    }
    return versions.get(py) ?? null;
  };
  const installDir = (version: string) => {
    const digest = createHash('sha256').update(readFileSync(spec.requirements)).digest('hex').slice(0, 12);
    return join(root, `py${version}-${digest}`);
  };

  const unavailable = (): string | null => {
    const py = python();
    const version = pythonVersion();
    if (version === null) return `${py} not found (apt-get install python3, or set ${spec.pythonEnv})`;
    if (existsSync(join(installDir(version), STAMP))) return null;
    if (spec.pythonRange) {
      const [major, minor] = version.split('.').map(Number);
      const cmp = (a: [number, number]) => (major !== a[0] ? major - a[0] : minor - a[1]);
      const [min, max] = spec.pythonRange;
      if (cmp(min) < 0 || cmp(max) >= 0) return `${py} is Python ${version}; ${spec.library} needs ${min.join('.')} to before ${max.join('.')} (set ${spec.pythonEnv} to one)`;
    }
    try {
      execFileSync(py, ['-m', 'pip', '--version'], { stdio: 'ignore', timeout: 30_000 });
    } catch {
      return `${py} has no pip (apt-get install python3-pip)`;
    }
    return null;
  };

  const install = async (force = false): Promise<string> => {
    const missing = unavailable();
    if (missing !== null) throw new Error(`${spec.label} unavailable: ${missing}`);
    const version = pythonVersion() as string;
    const dir = installDir(version);
    if (force) rmSync(dir, { recursive: true, force: true });
    if (existsSync(join(dir, STAMP))) return dir;
    mkdirSync(root, { recursive: true });
    const tmp = mkdtempSync(`${dir}.tmp-`);
    const started = Date.now();
    try {
      await run(
        python(),
        ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-input', '--root-user-action=ignore', '--no-deps', '--require-hashes', '--target', tmp, '-r', spec.requirements],
        { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
      );
      writeFileSync(join(tmp, STAMP), JSON.stringify({ library: spec.library, python: version, seconds: (Date.now() - started) / 1000 }) + '\n');
      try {
        renameSync(tmp, dir);
      } catch (err) {
        // another process finished first: its install is as good as ours
        if (!existsSync(join(dir, STAMP))) throw err;
        rmSync(tmp, { recursive: true, force: true });
      }
      return dir;
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true });
      const e = err as Error & { stderr?: string; stdout?: string };
      throw new Error(`could not install the ${spec.label} (${spec.library}) with pip: ${e.stderr || e.stdout || e.message}`.trim());
    }
  };

  let installing: Promise<string> | null = null;
  const ensure = async (): Promise<void> => {
    installing ??= install().finally(() => {
      installing = null;
    });
    await installing;
  };

  return {
    root,
    unavailable,
    skipWithout(file: string): boolean {
      const missing = unavailable();
      if (missing === null || process.env[spec.requireEnv] === '1') return false;
      console.warn(`${file}: skipped, the ${spec.label} (${spec.library}) cannot run here: ${missing}`);
      return true;
    },
    install,
    ensure,
    async runDriver(text: string, fileName: string): Promise<string> {
      await ensure();
      const dir = installDir(pythonVersion() as string);
      const tmp = mkdtempSync(join(tmpdir(), `${spec.dirName}-`));
      const file = join(tmp, fileName);
      try {
        writeFileSync(file, text, 'utf8');
        try {
          const { stdout } = await run(python(), ['-I', spec.driver, '--lib', dir, file], { timeout: spec.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 });
          return stdout;
        } catch (err) {
          const e = err as Error & { code?: number; stdout?: string; stderr?: string };
          // exit 1 is the driver's "refused", with its JSON on stdout; anything else is a failure
          if (e.code !== 1 || !e.stdout) throw new Error(`the ${spec.label} failed: ${e.stderr || e.message}`.trim());
          return e.stdout;
        }
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    },
    installSeconds(dir: string): number {
      return (JSON.parse(readFileSync(join(dir, STAMP), 'utf8')) as { seconds: number }).seconds;
    },
  };
}

/** Runs `main(argv)` when `moduleUrl` is the script node was started with, and sets the exit code. */
export function runAsScript(moduleUrl: string, main: (args: string[]) => Promise<number>): void {
  if (!process.argv[1] || resolve(process.argv[1]) !== fileURLToPath(moduleUrl)) return;
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error((err as Error).message);
      process.exitCode = 1;
    },
  );
}
