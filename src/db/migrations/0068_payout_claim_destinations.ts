import { type Kysely, sql } from 'kysely';

/**
 * Where a live claim-link payout is paid out (docs/notifications.md "When claim_link is live"):
 * the route the recipient chose on the claim page (a catalog channel such as ach_usd, its rail)
 * and the recipient's validated fields for it. One row per payout, written once before the
 * payout's `claim` Update; the delivery reads it. Written only by src/core/payouts/claim-destinations.ts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table if not exists payout_claim_destinations (
    payout_id text primary key references payouts(id),
    channel text not null,
    rail text not null,
    details jsonb not null,
    created_at timestamptz not null default now()
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists payout_claim_destinations`.execute(db);
}
