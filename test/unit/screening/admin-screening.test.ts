/**
 * `npm run admin -- screening load | check | status` (docs/screening.md "For operators"): in
 * process against an in-memory database, and once through src/main/admin.ts (its one dispatch
 * line) as an operator runs it, with `--json` printing exactly one JSON document.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../../src/db/schema';
import { runScreeningCommand } from '../../../src/main/admin-screening';
import { ofacTestdataDir, ofacTestdataMissing } from '../../../tools/screening/ofac-testdata';
import { freshDatabase } from '../../helpers/fresh-database';

const ROOT = join(import.meta.dirname, '../../..');
const FIX = join(ROOT, 'test/fixtures/screening');
let db: Db;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ db, close } = await freshDatabase());
});
afterAll(() => close());

/** Runs one command in process; returns its exit code and what it printed. */
async function run(args: string[], env: Record<string, string | undefined> = {}) {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const err = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const code = await runScreeningCommand(db, args, env);
    return { code, stdout: log.mock.calls.map((c) => c.join(' ')).join('\n'), stderr: err.mock.calls.map((c) => c.join(' ')).join('\n') };
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
}

describe('in process', () => {
  it('load stores a list from a directory; check prints the best hits with score and entry, or clear', async () => {
    const load = await run(['load', '--list', 'ofac-sdn-csv', '--dir', join(FIX, 'ofac-csv'), '--json']);
    expect(load.code, load.stderr).toBe(0);
    expect(JSON.parse(load.stdout)).toMatchObject({ list: 'ofac-sdn-csv', loaded: true, changed: true, entry_count: 3, version_id: expect.stringMatching(/^slv_/) });

    const hit = await run(['check', '--name', 'BANCO NACIONAL DE CUBA']);
    expect(hit.code).toBe(0);
    expect(hit.stdout).toMatch(/^potential_match\n1\.0000 {2}ofac-sdn-csv 306 {2}BANCO NACIONAL DE CUBA {2}\[CUBA\]/);

    const clear = await run(['check', '--name', 'Maria Garcia Lopez']);
    expect(clear).toMatchObject({ code: 0, stdout: 'clear' });

    const json = await run(['check', '--name', 'National Bank of Cuba', '--kind', 'entity', '--json']);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ outcome: 'potential_match', hits: [{ list: 'ofac-sdn-csv', entry_id: '306', matched_name: 'NATIONAL BANK OF CUBA', score: 1 }] });
    expect(doc.list_versions[0].version_id).toMatch(/^slv_/);
  });

  it('load fails with exit 1 and keeps the last version when the files are not in the official shape', async () => {
    const r = await run(['load', '--list', 'eu-fsf', '--dir', join(FIX, 'ofac-csv')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/list eu-fsf not loaded: .*eu-fsf\.xml/);
  });

  it('check answers unavailable (exit 1) for a list never loaded; status says why; usage errors exit 2', async () => {
    const r = await run(['check', '--name', 'Anyone', '--list', 'uk-sanctions', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'unavailable', reasons: ['list uk-sanctions has never been loaded'], hits: [] });
    const status = await run(['status', '--json'], { SCREENING_LISTS: 'ofac-sdn-csv,uk-sanctions' });
    expect(JSON.parse(status.stdout)).toMatchObject({ available: false, lists: [{ list: 'ofac-sdn-csv', stale: false }, { list: 'uk-sanctions', stale: true, version_id: null }] });
    expect((await run(['check'])).code).toBe(2);
    expect((await run(['load', '--list', 'nope', '--dir', '.'])).code).toBe(2);
    expect((await run(['frobnicate'])).code).toBe(2);
  });
});

const OFAC = ofacTestdataDir();

describe.skipIf(!OFAC)(`npm run admin -- screening (a process, the OFAC test data)${OFAC ? '' : ` (skipped: ${ofacTestdataMissing})`}`, () => {
  it('loads the official OFAC SDN CSV set from a directory and checks names', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'admin-screening-')) };
    delete env.DATABASE_URL;
    delete env.SCREENING_LISTS;
    const admin = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main/admin.ts', 'screening', ...args], { cwd: ROOT, env }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    const load = await admin('load', '--list', 'ofac-sdn-csv', '--dir', OFAC!, '--json');
    expect(load.code, load.stderr).toBe(0);
    expect(JSON.parse(load.stdout).entry_count).toBeGreaterThan(10_000);
    const check = await admin('check', '--name', 'BANCO NACIONAL DE CUBA', '--json');
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ outcome: 'potential_match', hits: [{ entry_id: '306', entry_name: 'BANCO NACIONAL DE CUBA', score: 1 }] });
    const clear = await admin('check', '--name', 'Acme Corp Ltd');
    expect(clear.stdout.trim()).toBe('clear');
  }, 180_000);
});
