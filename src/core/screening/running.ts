/**
 * Screening's running life (docs/screening.md "Versions and refresh", "Fail closed"): each process
 * runs both services' refresh loops; the worker fetches the lists and, when screening is available
 * again or a list changed, signals the payouts waiting `unavailable` and screens saved recipients again.
 */
import { sql } from 'kysely';
import type { Environment } from '../../db/tables/platform';
import { signalScreeningRecheck } from '../../temporal/payout-gateway';
import type { Core } from '../context';
import { rescreenRecipients } from './recipient-screening';
import type { SyncReport } from './service';

/** Ids of `environment`'s payouts still `submitted` or `claimed` whose last screening answered `unavailable`. */
export async function payoutsWaitingForScreening(core: Pick<Core, 'db'>, environment: Environment): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select p.id from payouts p
    join lateral (select s.outcome from screenings s where s.reference = p.id order by s.screened_at desc, s.id desc limit 1) last on true
    where p.environment = ${environment} and p.status in ('submitted', 'claimed') and last.outcome = 'unavailable'
    order by p.id`.execute(core.db);
  return rows.map((r) => r.id);
}

/** Signals `screeningRecheck` to every payout {@link payoutsWaitingForScreening}; `signal` is injectable for tests. Returns the ids signalled. */
export async function recheckWaitingPayouts(
  core: Pick<Core, 'db' | 'temporal' | 'log'>,
  environment: Environment,
  signal: (payoutId: string) => Promise<boolean> = (id) => signalScreeningRecheck(core.temporal, id),
): Promise<string[]> {
  const signalled: string[] = [];
  for (const id of await payoutsWaitingForScreening(core, environment)) {
    try {
      if (await signal(id)) signalled.push(id);
    } catch (err) {
      core.log.warn({ payoutId: id, err: (err as Error).message }, 'screeningRecheck signal failed; the payout screens again at its own recheck');
    }
  }
  if (signalled.length > 0) core.log.info({ environment, payouts: signalled.length }, 'screening available: payouts waiting for it were signalled');
  return signalled;
}

/** The worker's reaction to one refresh-loop tick of `environment` (see the module comment). */
export async function afterScreeningSync(core: Core, environment: Environment, report: SyncReport): Promise<void> {
  if (!report.available) return;
  if (report.becameAvailable || report.reloaded.length > 0) await recheckWaitingPayouts(core, environment);
  if (environment === 'live' && (report.becameAvailable || report.reloaded.length > 0)) {
    const r = await rescreenRecipients(core, environment);
    if (r.screened > 0) core.log.info({ environment, ...r }, 'saved recipients screened again after a list change');
  }
}

/**
 * Starts both services' loops: `fetch` (the worker) downloads due lists and reacts to each tick;
 * other processes only sync. The worker builds live indexes at once when a version changes (only where
 * lists are configured); the API builds them at its first screening, the sandbox's at first use. Returns a function that stops both loops.
 */
export function startScreening(core: Core, opts: { fetch: boolean; everyMs?: number }): () => void {
  for (const environment of ['live', 'sandbox'] as const) {
    core.screening[environment].start({
      fetch: opts.fetch,
      everyMs: opts.everyMs,
      warm: environment === 'live' && opts.fetch,
      onSync: opts.fetch ? (report) => afterScreeningSync(core, environment, report) : undefined,
    });
  }
  return () => {
    core.screening.live.stop();
    core.screening.sandbox.stop();
  };
}
