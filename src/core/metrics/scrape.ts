import { sql } from 'kysely';
import type { Db } from '../../db/schema';
import { refreshScreeningQueueGauge } from '../screening/cases';
import { refreshTreasuryGauges } from '../treasury/report';
import { refreshSolanaGauges } from './solana';
import { refreshDatabaseGauges } from './database';
import { disbursementItemsInFlight, metricsRegistry, outboxBacklog, outboxOldestSeconds, railOldestWaitingPayout } from './registry';
import { RAIL_MODULES } from '../../rails/registry';

export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;

const PAYOUT_IN_FLIGHT = ['pending', 'submitted', 'delivering', 'awaiting_claim', 'claimed'];

/** Sets the scrape-time gauges; a database error is rethrown (the scrape answers 500: `up == 0`). */
export async function refreshScrapeTimeGauges(db: Db): Promise<void> {
  // Only running or paused disbursements: keeps the count on the (disbursement_id, status) index.
  const rows = await db
    .selectFrom('disbursements as d')
    .innerJoin('disbursement_items as di', 'di.disbursement_id', 'd.id')
    .leftJoin('payouts as p', 'p.id', 'di.payout_id')
    .select([
      'di.environment',
      sql<string>`case when di.status = 'pending' then 'pending' else 'processing' end`.as('status'),
      sql<string>`count(*)`.as('n'),
    ])
    .where('d.status', 'in', ['processing', 'paused'])
    .where((eb) =>
      eb.or([eb('di.status', '=', 'pending'), eb.and([eb('di.status', '=', 'launched'), eb('p.status', 'in', PAYOUT_IN_FLIGHT)])]),
    )
    .groupBy(['di.environment', sql`2`])
    .execute();
  disbursementItemsInFlight.reset();
  // Always expose both statuses of both environments (0 when none), so alerts see a series.
  for (const environment of ['sandbox', 'live']) {
    for (const status of ['pending', 'processing']) disbursementItemsInFlight.set({ environment, status }, 0);
  }
  for (const r of rows) disbursementItemsInFlight.set({ environment: r.environment, status: r.status }, Number(r.n));

  const waiting = await db
    .selectFrom('rail_instructions')
    .select(['rail', sql<Date>`min(created_at)`.as('oldest')])
    .where('status', 'in', ['queued', 'in_file', 'accepted'])
    .groupBy('rail')
    .execute();
  const backlog = await sql<{ outbox: string; n: string; oldest: Date | null }>`
    select 'workflow_starts' as outbox, count(*)::text as n, min(created_at) as oldest from workflow_starts where started_at is null
    union all
    select 'events', count(*)::text, min(created_at) from events where dispatched_at is null`.execute(db);
  for (const b of backlog.rows) {
    outboxBacklog.set({ outbox: b.outbox }, Number(b.n));
    outboxOldestSeconds.set({ outbox: b.outbox }, b.oldest ? Math.max(0, Math.floor((Date.now() - new Date(b.oldest).getTime()) / 1000)) : 0);
  }
  railOldestWaitingPayout.reset();
  for (const m of RAIL_MODULES) railOldestWaitingPayout.set({ rail: m.rail }, 0);
  for (const w of waiting) railOldestWaitingPayout.set({ rail: w.rail }, Math.max(0, Math.floor((Date.now() - new Date(w.oldest).getTime()) / 1000)));
  await refreshTreasuryGauges(db);
  await refreshSolanaGauges(db);
  await refreshScreeningQueueGauge(db);
  await refreshDatabaseGauges(db);
}

/** The `/metrics` body: this process's registry, then `extra` (the Temporal SDK's metrics on the worker). */
export async function renderMetrics(db: Db, extra?: () => Promise<string>): Promise<string> {
  await refreshScrapeTimeGauges(db);
  const own = await metricsRegistry.metrics();
  if (!extra) return own;
  return `${own.trimEnd()}\n${(await extra()).trimEnd()}\n`;
}
