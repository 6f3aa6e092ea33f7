/**
 * `npm run demo:live`, the settlement accounts (docs/treasury.md): after the live payouts, the test
 * bank closes the day and writes both end-of-day statements, a camt.053 of the EUR account with a
 * planted bank fee the platform never booked, and a BAI2 of the USD account. The service reads them
 * over SFTP and reconciles them; the demo waits until the gauge treasury_open_breaks on `/metrics`
 * shows the planted break, stops the service (its PGlite directory is locked while it runs) and
 * prints the day's reconciliation report as an operator sees it: `npm run admin -- treasury`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { TestBank } from '../test-bank/bank';

/** Waits up to `timeoutMs` for `/metrics` of `base` to show `series` with a value of at least 1. */
async function gaugeAtLeastOne(base: string, series: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const text = await fetch(`${base}/metrics`).then((r) => r.text(), () => '');
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    if (line && Number(line.split(' ')[1]) >= 1) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

/**
 * Runs the demo's treasury part (see the module comment): stops `service` (SIGINT, waits for its
 * exit) before running the admin command on `dataDir` (or `databaseUrl`, the service's PostgreSQL). Throws when the planted break is not found
 * within 60 s or the admin command fails.
 */
export async function treasuryPart(opts: { bank: TestBank; base: string; service: ChildProcess; dataDir: string; databaseUrl?: string }): Promise<void> {
  const closed = opts.bank.closeDay({ EUR: { fee: { amountMinor: '750', text: 'Account maintenance fee' } } });
  console.log(`\nthe bank closes the day: ${closed.camt053.name} (EUR, camt.053) and ach/${closed.bai2.name} (USD, BAI2)`);
  for (const p of closed.planted) console.log(`planted: ${p.kind} on the ${p.account} statement, ${p.reference}, ${p.amountMinor} minor units`);
  const found = await gaugeAtLeastOne(opts.base, 'treasury_open_breaks{rail="sepa_credit_transfer",kind="bank_only"}', 60_000);
  if (!found) throw new Error('the planted break was not found within 60 s (treasury_open_breaks on /metrics)');
  // Another poll of the ACH connection reads the BAI2 statement, then the service stops.
  await new Promise((r) => setTimeout(r, 2000));
  if (opts.service.exitCode === null) {
    opts.service.kill('SIGINT');
    await new Promise((r) => opts.service.once('exit', r));
  }
  console.log('\nthe day\'s reconciliation report (npm run admin -- treasury):');
  const admin = spawn(process.execPath, ['--import', 'tsx', 'src/main/admin.ts', 'treasury'], {
    env: { ...process.env, DATA_DIR: opts.dataDir, ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((r) => admin.once('exit', r));
  if (code !== 0) throw new Error(`npm run admin -- treasury exited ${code}`);
}
