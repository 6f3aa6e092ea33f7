import { type Kysely, sql } from 'kysely';

/**
 * The identity a claimant gave on the claim page of a kycRequired channel (docs/screening.md
 * "Identity at claim time"): one row per payout, written once before the payout's `claim` Update.
 * The national id and date of birth are sealed with the secrets keyring (docs/security.md "Secrets
 * at rest"). Written only by src/core/claim-flow/claimant-identity.ts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table if not exists claimant_identities (
    payout_id text primary key references payouts(id),
    business_id text not null,
    environment text not null check (environment in ('sandbox', 'live')),
    channel text not null,
    full_name text not null,
    date_of_birth text not null,
    national_id_kind text not null,
    national_id text not null,
    holder_name text not null,
    name_match boolean not null,
    created_at timestamptz not null default now()
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists claimant_identities`.execute(db);
}
