/**
 * The independent NACHA validator for the tests and CI (issue #20, docs/nacha-validator.md): PyPI's
 * `achlens` (Apache-2.0), pinned with hashes in tools/nacha/requirements.txt, run by the small driver
 * tools/nacha/driver.py. It is not our code: our NACHA writer (src/rails/nacha/) is checked against
 * it, never against itself. Among what it refuses: a batch or file control whose entry hash is wrong
 * (rules BC003, FC004), a trace number that repeats anywhere in the file (ED013), and also wrong
 * counts and totals, record lengths, blocking, routing check digits, addenda sequence numbers.
 *
 * Installed as a pinned PyPI tool (tools/pinned-pip.ts) into `.tools/nacha-validator/`. Needs
 * Python 3.11 to 3.13 (achlens's own bounds) with pip: `python3`, or the interpreter named by
 * `NACHA_PYTHON`.
 *
 *   npx tsx tools/nacha/validator.ts install [--force]   # install (what .ci/run does), print where
 *   npx tsx tools/nacha/validator.ts [--strict] FILE...  # validate files by hand; exit 1 if any is refused
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pinnedPipTool, runAsScript } from '../pinned-pip';

/** The pinned library, as the report and the docs name it. */
export const NACHA_VALIDATOR_LIBRARY = 'achlens 0.1.7 (PyPI, Apache-2.0)';

const tool = pinnedPipTool({
  label: 'NACHA validator',
  library: NACHA_VALIDATOR_LIBRARY,
  dirName: 'nacha-validator',
  requirements: fileURLToPath(new URL('./requirements.txt', import.meta.url)),
  driver: fileURLToPath(new URL('./driver.py', import.meta.url)),
  pythonEnv: 'NACHA_PYTHON',
  requireEnv: 'REQUIRE_NACHA_VALIDATOR',
  // achlens 0.1.7's Requires-Python: >=3.11,<3.14
  pythonRange: [[3, 11], [3, 14]],
  timeoutMs: 120_000,
});

/** Where every install lives: `.tools/nacha-validator/` under the repository root. */
export const NACHA_VALIDATOR_DIR = tool.root;

/**
 * Why the NACHA validator cannot run on this machine, or null when it can (installed, or a Python
 * 3.11-3.13 with pip is there). Never throws.
 */
export const nachaValidatorUnavailable = (): string | null => tool.unavailable();

/**
 * Whether a test file needing the validator skips here: it cannot run and
 * `REQUIRE_NACHA_VALIDATOR` is not `1` (which `.ci/run` sets, so CI fails rather than skips).
 */
export const skipWithoutNachaValidator = (file: string): boolean => tool.skipWithout(file);

/** Installs the pinned validator if it is not there yet (idempotent). Throws when Python or pip fails. */
export const ensureNachaValidator = (): Promise<void> => tool.ensure();

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
  const report = JSON.parse(await tool.runDriver(text, 'file.ach')) as { valid: boolean; errors: string[]; warnings: string[] };
  const errors = [...report.errors, ...(options.strict ? report.warnings.map((w) => `warning ${w}`) : [])];
  return { valid: report.valid && errors.length === 0, errors };
}

runAsScript(import.meta.url, async (args) => {
  if (args[0] === 'install') {
    const started = Date.now();
    const dir = await tool.install(args.includes('--force'));
    console.log(`NACHA validator ${NACHA_VALIDATOR_LIBRARY} in ${dir} (installed in ${tool.installSeconds(dir)} s; this run ${(Date.now() - started) / 1000} s)`);
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
});
