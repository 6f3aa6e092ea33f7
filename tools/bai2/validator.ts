/**
 * The independent BAI2 parser for the tests and CI (docs/treasury.md "Independent BAI2 parser"):
 * PyPI's `bai2` (MIT), pinned with hashes in tools/bai2/requirements.txt, run by the small driver
 * tools/bai2/driver.py with its integrity checks on (record counts and control totals). It is not
 * our code: every BAI2 statement the tests read (the test bank's, written by src/rails/bai2/write.ts)
 * is parsed by it and its reading is compared with ours (src/rails/bai2/parse.ts).
 *
 * Installed like the NACHA validator (tools/nacha/validator.ts): `pip install --no-deps
 * --require-hashes --target` into `.tools/bai2-validator/<python X.Y>-<first 12 hex of the
 * requirements file's sha256>/` (git-ignored), through a temporary directory renamed into place.
 * Needs Python 3 with pip (`python3`, or `BAI2_PYTHON`).
 *
 *   npx tsx tools/bai2/validator.ts install [--force]   # install (what .ci/run does), print where
 *   npx tsx tools/bai2/validator.ts FILE...             # parse files by hand; exit 1 if any is refused
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REQUIREMENTS = fileURLToPath(new URL('./requirements.txt', import.meta.url));
const DRIVER = fileURLToPath(new URL('./driver.py', import.meta.url));
/** Where every install lives: `.tools/bai2-validator/` under the repository root. */
export const BAI2_VALIDATOR_DIR = join(ROOT, '.tools', 'bai2-validator');
/** The pinned library, as the reports and the docs name it. */
export const BAI2_VALIDATOR_LIBRARY = 'bai2 0.15.0 (PyPI, MIT)';
const STAMP = 'installed.json';

function python(): string {
  return process.env.BAI2_PYTHON || 'python3';
}

let version: string | null | undefined;
function pythonVersion(): string | null {
  if (version === undefined) {
    try {
      version = execFileSync(python(), ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 15_000 }).trim();
    } catch {
      version = null;
    }
  }
  return version;
}

function installDir(v: string): string {
  const digest = createHash('sha256').update(readFileSync(REQUIREMENTS)).digest('hex').slice(0, 12);
  return join(BAI2_VALIDATOR_DIR, `py${v}-${digest}`);
}

/**
 * Why the BAI2 parser cannot run here (no Python 3, no pip), or null when it can (installed, or
 * installable). Never throws.
 */
export function bai2ValidatorUnavailable(): string | null {
  const v = pythonVersion();
  if (v === null) return `${python()} not found (apt-get install python3, or set BAI2_PYTHON)`;
  if (existsSync(join(installDir(v), STAMP))) return null;
  try {
    execFileSync(python(), ['-m', 'pip', '--version'], { stdio: 'ignore', timeout: 30_000 });
  } catch {
    return `${python()} has no pip (apt-get install python3-pip)`;
  }
  return null;
}

/**
 * Whether a test file needing the parser skips here: it cannot run and `REQUIRE_BAI2_VALIDATOR` is
 * not `1` (which `.ci/run` sets, so CI fails rather than skips). Prints the reason when it skips.
 */
export function skipWithoutBai2Validator(file: string): boolean {
  const missing = bai2ValidatorUnavailable();
  if (missing === null || process.env.REQUIRE_BAI2_VALIDATOR === '1') return false;
  console.warn(`${file}: skipped, the independent BAI2 parser (${BAI2_VALIDATOR_LIBRARY}) cannot run here: ${missing}`);
  return true;
}

let installing: Promise<string> | null = null;

async function install(force = false): Promise<string> {
  const missing = bai2ValidatorUnavailable();
  if (missing !== null) throw new Error(`BAI2 parser unavailable: ${missing}`);
  const dir = installDir(pythonVersion() as string);
  if (force) rmSync(dir, { recursive: true, force: true });
  if (existsSync(join(dir, STAMP))) return dir;
  mkdirSync(BAI2_VALIDATOR_DIR, { recursive: true });
  const tmp = mkdtempSync(`${dir}.tmp-`);
  const started = Date.now();
  try {
    await run(python(), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-input', '--root-user-action=ignore', '--no-deps', '--require-hashes', '--target', tmp, '-r', REQUIREMENTS], {
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    writeFileSync(join(tmp, STAMP), JSON.stringify({ library: BAI2_VALIDATOR_LIBRARY, python: pythonVersion(), seconds: (Date.now() - started) / 1000 }) + '\n');
    try {
      renameSync(tmp, dir);
    } catch (err) {
      if (!existsSync(join(dir, STAMP))) throw err;
      rmSync(tmp, { recursive: true, force: true });
    }
    return dir;
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    const e = err as Error & { stderr?: string; stdout?: string };
    throw new Error(`could not install the BAI2 parser (${BAI2_VALIDATOR_LIBRARY}) with pip: ${e.stderr || e.stdout || e.message}`.trim());
  }
}

/** Installs the pinned parser if it is not there yet (idempotent). Throws when Python or pip fails. */
export async function ensureBai2Validator(): Promise<void> {
  installing ??= install().finally(() => {
    installing = null;
  });
  await installing;
}

/** One account as the independent parser reads it (amounts in integer minor units). */
export interface IndependentBai2Account {
  account: string;
  currency: string;
  as_of_date: string;
  /** Status and summary amounts by type code (`010`, `015`). */
  amounts: Record<string, number>;
  transactions: Array<{ type_code: string; credit_debit: 'credit' | 'debit'; amount: number; bank_reference: string | null; customer_reference: string | null; text: string | null }>;
}

/** What {@link parseBai2Independently} answers: accepted with its accounts, or refused with the library's error. */
export type IndependentBai2Result = { valid: true; accounts: IndependentBai2Account[] } | { valid: false; error: string };

/**
 * Parses a whole BAI2 file with the independent parser (installing it first if needed). A refused
 * file is `{ valid: false, error }`, not an exception. Throws an Error when the parser cannot be
 * installed or run.
 */
export async function parseBai2Independently(text: string): Promise<IndependentBai2Result> {
  await ensureBai2Validator();
  const dir = installDir(pythonVersion() as string);
  const tmp = mkdtempSync(join(tmpdir(), 'bai2-validate-'));
  const file = join(tmp, 'file.bai');
  try {
    writeFileSync(file, text, 'utf8');
    let stdout: string;
    try {
      ({ stdout } = await run(python(), ['-I', DRIVER, '--lib', dir, file], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }));
    } catch (err) {
      const e = err as Error & { code?: number; stdout?: string; stderr?: string };
      if (e.code !== 1 || !e.stdout) throw new Error(`the BAI2 parser failed: ${e.stderr || e.message}`.trim());
      stdout = e.stdout;
    }
    return JSON.parse(stdout) as IndependentBai2Result;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(args: string[]): Promise<number> {
  if (args[0] === 'install') {
    const started = Date.now();
    const dir = await install(args.includes('--force'));
    console.log(`BAI2 parser ${BAI2_VALIDATOR_LIBRARY} in ${dir} (this run ${(Date.now() - started) / 1000} s)`);
    return 0;
  }
  if (args.length === 0) {
    console.error('usage: npx tsx tools/bai2/validator.ts install [--force] | FILE...');
    return 2;
  }
  let refused = 0;
  for (const f of args) {
    const r = await parseBai2Independently(readFileSync(f, 'utf8'));
    console.log(`${f}: ${r.valid ? 'parsed' : `REFUSED ${r.error}`}`);
    if (!r.valid) refused++;
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
