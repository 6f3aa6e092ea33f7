/**
 * The independent BAI2 parser for the tests and CI (docs/treasury.md "Independent BAI2 parser"):
 * PyPI's `bai2` (MIT), pinned with hashes in tools/bai2/requirements.txt, run by the small driver
 * tools/bai2/driver.py with its integrity checks on (record counts and control totals). It is not
 * our code: every BAI2 statement the tests read (the test bank's, written by src/rails/bai2/write.ts)
 * is parsed by it and its reading is compared with ours (src/rails/bai2/parse.ts).
 *
 * Installed as a pinned PyPI tool (tools/pinned-pip.ts) into `.tools/bai2-validator/`. Needs
 * Python 3 with pip (`python3`, or `BAI2_PYTHON`).
 *
 *   npx tsx tools/bai2/validator.ts install [--force]   # install (what .ci/run does), print where
 *   npx tsx tools/bai2/validator.ts FILE...             # parse files by hand; exit 1 if any is refused
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pinnedPipTool, runAsScript } from '../pinned-pip';

/** The pinned library, as the reports and the docs name it. */
export const BAI2_VALIDATOR_LIBRARY = 'bai2 0.15.0 (PyPI, MIT)';

const tool = pinnedPipTool({
  label: 'BAI2 parser',
  library: BAI2_VALIDATOR_LIBRARY,
  dirName: 'bai2-validator',
  requirements: fileURLToPath(new URL('./requirements.txt', import.meta.url)),
  driver: fileURLToPath(new URL('./driver.py', import.meta.url)),
  pythonEnv: 'BAI2_PYTHON',
  requireEnv: 'REQUIRE_BAI2_VALIDATOR',
});

/** Where every install lives: `.tools/bai2-validator/` under the repository root. */
export const BAI2_VALIDATOR_DIR = tool.root;

/** Why the BAI2 parser cannot run here (no Python 3, no pip), or null when it can. Never throws. */
export const bai2ValidatorUnavailable = (): string | null => tool.unavailable();

/**
 * Whether a test file needing the parser skips here: it cannot run and `REQUIRE_BAI2_VALIDATOR` is
 * not `1` (which `.ci/run` sets, so CI fails rather than skips). Prints the reason when it skips.
 */
export const skipWithoutBai2Validator = (file: string): boolean => tool.skipWithout(file);

/** Installs the pinned parser if it is not there yet (idempotent). Throws when Python or pip fails. */
export const ensureBai2Validator = (): Promise<void> => tool.ensure();

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
  return JSON.parse(await tool.runDriver(text, 'file.bai')) as IndependentBai2Result;
}

runAsScript(import.meta.url, async (args) => {
  if (args[0] === 'install') {
    const started = Date.now();
    const dir = await tool.install(args.includes('--force'));
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
});
