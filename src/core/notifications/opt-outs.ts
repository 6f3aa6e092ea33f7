/**
 * Recipients who opted out of a channel on a number (`notification_opt_outs`; the only module that
 * writes it; docs/notifications.md "Consent"). Twilio's inbound webhook reports a reply of STOP
 * (and its synonyms) with `OptOutType=STOP`, and START / UNSTOP with `OptOutType=START`: the first
 * records an opt-out, the second removes it. A number that opted out is sent no SMS; its
 * notification fails with failure_code `opted_out`.
 */
import type { DbOrTx, Environment } from '../../db/schema';

/** Records that `destination` opted out of `channel` (idempotent). */
export async function recordOptOut(db: DbOrTx, environment: Environment, channel: string, destination: string, source: string): Promise<void> {
  await db.insertInto('notification_opt_outs').values({ environment, channel, destination, source }).onConflict((oc) => oc.columns(['environment', 'channel', 'destination']).doNothing()).execute();
}

/** Removes an opt-out (the recipient answered START / UNSTOP). */
export async function removeOptOut(db: DbOrTx, environment: Environment, channel: string, destination: string): Promise<void> {
  await db.deleteFrom('notification_opt_outs').where('environment', '=', environment).where('channel', '=', channel).where('destination', '=', destination).execute();
}

/** Whether `destination` opted out of `channel`. */
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
