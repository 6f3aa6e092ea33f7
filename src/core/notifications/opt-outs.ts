/** SMS opt-outs (`notification_opt_outs`, owned here; docs/notifications.md "Consent"): an opted-out number gets no SMS. */
import type { DbOrTx, Environment } from '../../db/schema';

/** Idempotent. */
export async function recordOptOut(db: DbOrTx, environment: Environment, channel: string, destination: string, source: string): Promise<void> {
  await db.insertInto('notification_opt_outs').values({ environment, channel, destination, source }).onConflict((oc) => oc.columns(['environment', 'channel', 'destination']).doNothing()).execute();
}

export async function removeOptOut(db: DbOrTx, environment: Environment, channel: string, destination: string): Promise<void> {
  await db.deleteFrom('notification_opt_outs').where('environment', '=', environment).where('channel', '=', channel).where('destination', '=', destination).execute();
}

export async function hasOptedOut(db: DbOrTx, environment: Environment, channel: string, destination: string): Promise<boolean> {
  const row = await db
    .selectFrom('notification_opt_outs')
    .select('destination')
    .where('environment', '=', environment)
    .where('channel', '=', channel)
    .where('destination', '=', destination)
    .executeTakeFirst();
  return row !== undefined;
}
