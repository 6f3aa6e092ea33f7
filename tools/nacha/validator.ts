/**
 * The independent NACHA validator for the tests and CI (issue #20, docs/nacha-validator.md): PyPI's
 * `achlens` (Apache-2.0), pinned with hashes in tools/nacha/requirements.txt, run by the small driver
 * tools/nacha/driver.py. It is not our code: our NACHA writer (src/rails/nacha/) is checked against
 * it, never against itself. Among what it refuses: a batch or file control whose entry hash is wrong
 * (rules BC003, FC004), a trace number that repeats anywhere in the file (ED013), and also wrong
 * counts and totals, record lengths, blocking, routing check digits, addenda sequence numbers.
 *
 * Installed with `pip install --no-deps --require-hashes --target` into
 * `.tools/nacha-validator/<python X.Y>-<first 12 hex of the requirements file's sha256>/` under the
 * repository root (git-ignored); a changed pin or another Python gets its own directory. The install
 * goes to a temporary directory renamed into place at the end, so parallel test files never see a
 * half-installed one. Needs Python 3.11 to 3.13 (achlens's own bounds) with pip: `python3`, or the
 * interpreter named by `NACHA_PYTHON`.
 *
 *   npx tsx tools/nacha/validator.ts install [--force]   # install (what .ci/run does), print where
 *   npx tsx tools/nacha/validator.ts [--strict] FILE...  # validate files by hand; exit 1 if any is refused
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository root (two levels above this file). */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The pinned requirements (achlens and PyYAML, with sha256 hashes). */
const REQUIREMENTS = fileURLToPath(new URL('./requirements.txt', import.meta.url));
/** The driver that runs achlens on one file and prints JSON. */
const DRIVER = fileURLToPath(new URL('./driver.py', import.meta.url));
/** Where every install lives: `.tools/nacha-validator/` under the repository root. */
export const NACHA_VALIDATOR_DIR = join(ROOT, '.tools', 'nacha-validator');
/** The pinned library, as the report and the docs name it. */
export const NACHA_VALIDATOR_LIBRARY = 'achlens 0.1.7 (PyPI, Apache-2.0)';
/** The Python versions achlens 0.1.7 supports (its Requires-Python: >=3.11,<3.14). */
const PYTHON_MIN: [number, number] = [3, 11];
const PYTHON_MAX_EXCLUSIVE: [number, number] = [3, 14];
/** File written last in an install directory: its presence means the install is complete. */
const STAMP = 'installed.json';

/** The Python interpreter used: `NACHA_PYTHON`, else `python3` from PATH. */
function python(): string {
  return process.env.NACHA_PYTHON || 'python3';
}

/** `major.minor` of the interpreter, or null when it cannot be run. Cached per interpreter. */
const versionCache = new Map<string, string | null>();
function pythonVersion(): string | null {
  const py = python();
  if (!versionCache.has(py)) {
    try {
      const out = execFileSync(py, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 15_000,
      });
      versionCache.set(py, out.trim());
    } catch {
      versionCache.set(py, null);
    }
  }
  return versionCache.get(py) ?? null;
}

/** The install directory for this interpreter's version and the current requirements file. */
function installDir(version: string): string {
  const digest = createHash('sha256').update(readFileSync(REQUIREMENTS)).digest('hex').slice(0, 12);
  return join(NACHA_VALIDATOR_DIR, `py${version}-${digest}`);
}

/** Whether a complete install for this interpreter and these pins is present. */
function installed(version: string): boolean {
  return existsSync(join(installDir(version), STAMP));
}

/**
 * Why the NACHA validator cannot run on this machine, or null when it can (already installed, or
 * installable: a Python 3.11-3.13 with pip is there; whether PyPI answers is only known by trying).
 * The reason names what to install. Test files that need the validator skip with this reason on a
 * developer's machine without Python (`skipWithoutNachaValidator`), unless
 * `REQUIRE_NACHA_VALIDATOR=1` (which `.ci/run` sets, so CI fails rather than skips).
 * Like tools/test-bank/sshd.ts's `testSftpServerUnavailable`. Never throws.
 */
export function nachaValidatorUnavailable(): string | null {
  const py = python();
  const version = pythonVersion();
  if (version === null) return `${py} not found (apt-get install python3, or set NACHA_PYTHON)`;
  if (installed(version)) return null;
  const [major, minor] = version.split('.').map(Number);
  const cmp = (a: [number, number]) => (major !== a[0] ? major - a[0] : minor - a[1]);
  if (cmp(PYTHON_MIN) < 0 || cmp(PYTHON_MAX_EXCLUSIVE) >= 0) {
    return `${py} is Python ${version}; achlens needs 3.11 to 3.13 (set NACHA_PYTHON to one)`;
  }
  try {
    execFileSync(py, ['-m', 'pip', '--version'], { stdio: 'ignore', timeout: 30_000 });
  } catch {
    return `${py} has no pip (apt-get install python3-pip)`;
  }
  return null;
}

/**
 * Whether a test file needing the validator skips here: `nachaValidatorUnavailable()` gives a
 * reason and `REQUIRE_NACHA_VALIDATOR` is not `1`. Prints the reason when it skips.
 */
export function skipWithoutNachaValidator(file: string): boolean {
  const missing = nachaValidatorUnavailable();
  if (missing === null || process.env.REQUIRE_NACHA_VALIDATOR === '1') return false;
  console.warn(`${file}: skipped, the NACHA validator (${NACHA_VALIDATOR_LIBRARY}) cannot run here: ${missing}`);
  return true;
}

/** One install per process at a time; later callers wait on the same promise. */
let installing: Promise<string> | null = null;

/**
 * Makes sure the pinned validator is installed under `.tools/nacha-validator/` and resolves to its
 * directory. Idempotent: when it is already there this only checks for a file (milliseconds).
 * Otherwise runs `pip install --no-deps --require-hashes --target` (a few seconds; pip's cache and
 * configured index are used as they are) into a temporary directory renamed into place.
 * `force` deletes the current install first.
 * Throws an Error naming the cause when Python is unusable (`nachaValidatorUnavailable`) or pip
 * fails (its output in the message).
 */
async function install(force = false): Promise<string> {
  const missing = nachaValidatorUnavailable();
  if (missing !== null) throw new Error(`NACHA validator unavailable: ${missing}`);
  const version = pythonVersion() as string;
  const dir = installDir(version);
  if (force) rmSync(dir, { recursive: true, force: true });
  if (existsSync(join(dir, STAMP))) return dir;
  mkdirSync(NACHA_VALIDATOR_DIR, { recursive: true });
  const tmp = mkdtempSync(`${dir}.tmp-`);
  const started = Date.now();
  try {
    await run(
      python(),
      ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-input', '--root-user-action=ignore',
        '--no-deps', '--require-hashes', '--target', tmp, '-r', REQUIREMENTS],
      { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
    );
    writeFileSync(
      join(tmp, STAMP),
      JSON.stringify({ library: NACHA_VALIDATOR_LIBRARY, python: version, seconds: (Date.now() - started) / 1000 }) + '\n',
    );
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
    throw new Error(`could not install the NACHA validator (${NACHA_VALIDATOR_LIBRARY}) with pip: ${e.stderr || e.stdout || e.message}`.trim());
  }
}

/**
 * Installs the pinned validator (achlens) into `.tools/nacha-validator/` if it is not there yet;
 * idempotent and fast when already installed. Throws an Error when it cannot (no suitable Python or
 * pip, or pip failed: see `nachaValidatorUnavailable`).
 */
export async function ensureNachaValidator(): Promise<void> {
  installing ??= install().finally(() => {
    installing = null;
  });
  await installing;
}

/** The result of `validateNacha`. */
export interface NachaValidation {
  /** True when the independent validator accepts the file (no finding of severity error, and none of severity warning when `strict`). */
  valid: boolean;
  /**
   * The validator's error findings (with `strict`, then its warnings, each prefixed `warning `), one
   * string each: `<rule id> line <n> position <p> <field>: <message> (expected <e>, found <a>)`,
   * e.g. `BC003 line 6 position 11 entry_hash: Batch entry hash does not match. (expected 3240155, found 0003240156)`.
   * Empty when valid.
   */
  errors: string[];
}

/** Options of `validateNacha`. */
export interface ValidateNachaOptions {
  /** Also refuse the file on achlens's warnings (e.g. a weekend effective date, ED014 a trace prefix other than the batch's ODFI). Default false. */
  strict?: boolean;
}

/**
 * Runs the independent validator (achlens, see the module comment) on the text of a whole NACHA
 * file: 94-character records, the line ends as given. The text goes through a temporary file, read
 * as ASCII (a non-ASCII character becomes U+FFFD, so such a record is refused for its length).
 * Installs the validator first if needed (`ensureNachaValidator`).
 * Resolves to `{ valid, errors }` (see `NachaValidation`); a refused file is not an exception.
 * Throws an Error when the validator cannot be installed or run (its standard error in the message).
 */
export async function validateNacha(text: string, options: ValidateNachaOptions = {}): Promise<NachaValidation> {
  await ensureNachaValidator();
  const dir = installDir(pythonVersion() as string);
  const tmp = mkdtempSync(join(tmpdir(), 'nacha-validate-'));
  const file = join(tmp, 'file.ach');
  try {
    writeFileSync(file, text, 'utf8');
    let stdout: string;
    try {
      ({ stdout } = await run(python(), ['-I', DRIVER, '--lib', dir, file], { timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }));
    } catch (err) {
      const e = err as Error & { code?: number; stdout?: string; stderr?: string };
      // exit 1 is the driver's "invalid", with its JSON on stdout; anything else is a failure
      if (e.code !== 1 || !e.stdout) throw new Error(`the NACHA validator failed: ${e.stderr || e.message}`.trim());
      stdout = e.stdout;
    }
    const report = JSON.parse(stdout) as { valid: boolean; errors: string[]; warnings: string[] };
    const errors = [...report.errors, ...(options.strict ? report.warnings.map((w) => `warning ${w}`) : [])];
    return { valid: report.valid && errors.length === 0, errors };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The command line (see the module comment). */
async function main(args: string[]): Promise<number> {
  if (args[0] === 'install') {
    const started = Date.now();
    const dir = await install(args.includes('--force'));
    const stamp = JSON.parse(readFileSync(join(dir, STAMP), 'utf8')) as { seconds: number };
    console.log(`NACHA validator ${NACHA_VALIDATOR_LIBRARY} in ${dir} (installed in ${stamp.seconds} s; this run ${(Date.now() - started) / 1000} s)`);
    return 0;
  }
  const strict = args.includes('--strict');
  const files = args.filter((a) => a !== '--strict');
  if (files.length === 0) {
    console.error('usage: npx tsx tools/nacha/validator.ts install [--force] | [--strict] FILE...');
    return 2;
  }
  let refused = 0;
  for (const f of files) {
    const result = await validateNacha(readFileSync(f, 'utf8'), { strict });
    console.log(`${f}: ${result.valid ? 'valid' : 'REFUSED'}`);
    for (const e of result.errors) console.log(`  ${e}`);
    if (!result.valid) refused += 1;
  }
  return refused === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
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
