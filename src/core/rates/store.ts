/** The one writer of `fx_rate_observations`: a write never moves a pair back in time. */
import { sql } from 'kysely';
import type { Db } from '../../db/schema';
import type { RateObservation } from '../../domain/rate-routes';

export async function readObservations(db: Db): Promise<RateObservation[]> {
  const rows = await db.selectFrom('fx_rate_observations').select(['source', 'base', 'quote', 'bid', 'ask', 'as_of']).execute();
  return rows.map((r) => ({ source: r.source, base: r.base, quote: r.quote, bid: r.bid, ask: r.ask, asOf: r.as_of }));
}

export async function storeObservations(db: Db, observations: readonly RateObservation[], fetchedAt: Date): Promise<void> {
  if (observations.length === 0) return;
  await db
    .insertInto('fx_rate_observations')
    .values(observations.map((o) => ({ source: o.source, base: o.base, quote: o.quote, bid: o.bid, ask: o.ask, as_of: o.asOf, fetched_at: fetchedAt })))
    .onConflict((oc) =>
      oc
        .columns(['source', 'base', 'quote'])
        .doUpdateSet({ bid: sql`excluded.bid`, ask: sql`excluded.ask`, as_of: sql`excluded.as_of`, fetched_at: sql`excluded.fetched_at` })
        .where(sql<boolean>`excluded.as_of >= fx_rate_observations.as_of`),
    )
    .execute();
}
