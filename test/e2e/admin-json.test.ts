/**
 * `npm run admin -- … --json` (docs/configuration.md "Commands"; issue #56): with `--json` every
 * command prints exactly one JSON document on stdout and nothing else, so its output pipes to `jq`
 * as it is; notes, logs and errors go to stderr. Runs the CLI as a process on PGlite in a fresh
 * DATA_DIR (DATABASE_URL removed), once through `npm run -s admin`, the documented pipe.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'admin-json-'));
const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info' };
delete env.DATABASE_URL;

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs the admin CLI with `args`; returns stdout parsed as one JSON document (JSON.parse throws on anything more or less). */
async function adminJson(...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/main/admin.ts', ...args, '--json'], { cwd: ROOT, env });
  return JSON.parse(stdout);
}

describe('npm run admin -- … --json prints one JSON document', () => {
  it('business create, business verify, channel pause/list/resume, audit verify, treasury, screening review list and db grants', async () => {
    const created = (await adminJson('business', 'create', '--name', 'Json Test')) as { business_id: string; keys: { sandbox: string } };
    expect(created.business_id).toMatch(/^biz_/);
    expect(created.keys.sandbox).toMatch(/^sk_test_/);
    expect(await adminJson('business', 'verify', created.business_id)).toEqual({ business_id: created.business_id, verified: true });
    // `channel pause` also writes an audit log line: on stderr, never between stdout's JSON.
    expect(await adminJson('channel', 'pause', 'spei_mxn', '--reason', 'bank outage')).toMatchObject({ channel: 'spei_mxn', reason: 'bank outage' });
    expect(await adminJson('channel', 'list')).toMatchObject([{ channel: 'spei_mxn' }]);
    expect(await adminJson('channel', 'resume', 'spei_mxn')).toEqual({ channel: 'spei_mxn', resumed: true });
    expect(await adminJson('audit', 'verify')).toMatchObject({ problems: [] });
    expect(Array.isArray(await adminJson('treasury'))).toBe(true);
    expect(await adminJson('screening', 'review', 'list')).toEqual({ cases: [] });
    expect(await adminJson('db', 'grants')).toEqual({ grants_applied: ['payouts_api', 'payouts_worker', 'payouts_admin'] });
  }, 240_000);

  it('through npm run -s admin, the way docs/configuration.md pipes it to jq', async () => {
    const { stdout } = await run('npm', ['run', '-s', 'admin', '--', 'channel', 'list', '--json'], { cwd: ROOT, env });
    expect(JSON.parse(stdout)).toEqual([]);
  }, 120_000);
});
