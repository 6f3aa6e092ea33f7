/** Stored Idempotency-Key records (spec "Limits"): the one module that writes `idempotency_keys`. */
import { sql } from 'kysely';
import type { DbOrTx, Environment } from '../db/schema';

/** Which record: business, environment, surface (`A`, `B`, `C`) and the key as sent. */
export interface IdempotencyScope {
  businessId: string;
  environment: Environment;
  scope: 'A' | 'B' | 'C';
  key: string;
}

const whereScope = (db: DbOrTx, s: IdempotencyScope) => ({
  update: () =>
    db
      .updateTable('idempotency_keys')
      .where('business_id', '=', s.businessId)
      .where('environment', '=', s.environment)
      .where('scope', '=', s.scope)
      .where('key', '=', s.key),
  delete: () =>
    db
      .deleteFrom('idempotency_keys')
      .where('business_id', '=', s.businessId)
      .where('environment', '=', s.environment)
      .where('scope', '=', s.scope)
      .where('key', '=', s.key),
});

/** Claims the key (`in_flight`, locked at `now`, with the request's hex SHA-256 `fingerprint`); false when a record exists. */
export async function claimIdempotencyRecord(db: DbOrTx, s: IdempotencyScope, fingerprint: string, now: Date, expiresAt: Date): Promise<boolean> {
  const rows = await db
    .insertInto('idempotency_keys')
    .values({
      business_id: s.businessId,
      environment: s.environment,
      scope: s.scope,
      key: s.key,
      fingerprint,
      state: 'in_flight',
      locked_at: now,
      response_status: null,
      response_body: null,
      response_headers: sql<string>`null`,
      expires_at: expiresAt,
    })
    .onConflict((oc) => oc.columns(['business_id', 'environment', 'scope', 'key']).doNothing())
    .returning('key')
    .execute();
  return rows.length === 1;
}

/** The stored record of the key, or undefined. */
export async function findIdempotencyRecord(db: DbOrTx, s: IdempotencyScope) {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('business_id', '=', s.businessId)
    .where('environment', '=', s.environment)
    .where('scope', '=', s.scope)
    .where('key', '=', s.key)
    .executeTakeFirst();
}

/** Deletes the key's record if it expired before `now`. */
export async function deleteExpiredIdempotencyRecord(db: DbOrTx, s: IdempotencyScope, now: Date): Promise<void> {
  await whereScope(db, s).delete().where('expires_at', '<', now).execute();
}

/** Relocks an `in_flight` record locked before `staleBefore` (its process died); returns whether it was taken. */
export async function takeOverIdempotencyRecord(db: DbOrTx, s: IdempotencyScope, now: Date, staleBefore: Date): Promise<boolean> {
  const taken = await whereScope(db, s).update().set({ locked_at: now }).where('state', '=', 'in_flight').where('locked_at', '<', staleBefore).executeTakeFirst();
  return Boolean(taken.numUpdatedRows);
}

/** Stores the response of the key's request (`done`): HTTP status, body text, headers to replay. */
export async function completeIdempotencyRecord(
  db: DbOrTx,
  s: IdempotencyScope,
  response: { status: number; body: string; headers: Record<string, string> },
): Promise<void> {
  await whereScope(db, s)
    .update()
    .set({ state: 'done', response_status: response.status, response_body: response.body, response_headers: JSON.stringify(response.headers) })
    .execute();
}

/** Deletes the key's record while still `in_flight`, freeing the key. */
export async function releaseIdempotencyRecord(db: DbOrTx, s: IdempotencyScope): Promise<void> {
  await whereScope(db, s).delete().where('state', '=', 'in_flight').execute();
}

/** Deletes up to `limit` records expired before `now`; returns how many. */
export async function purgeExpiredIdempotencyRecords(db: DbOrTx, now: Date, limit: number): Promise<number> {
  const r = await sql<{ n: string }>`
    with gone as (
      delete from idempotency_keys where ctid in (select ctid from idempotency_keys where expires_at < ${now} limit ${limit})
      returning 1
    ) select count(*)::text as n from gone`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}
