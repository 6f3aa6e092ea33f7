/** The sandbox provider: sends nothing, records each message once per notification id for testers to read. */
import { newId } from '../domain/ids';
import type { Db } from '../db/schema';
import type { NotificationProvider, OutgoingNotification, SentNotification } from '../core/notifications/provider';

export const SANDBOX_PROVIDER = 'sandbox';

export function sandboxNotificationProvider(db: Db): NotificationProvider {
  return {
    name: SANDBOX_PROVIDER,
    async send(m: OutgoingNotification): Promise<SentNotification> {
      const inserted = await db
        .insertInto('sandbox_notification_messages')
        .values({
          id: newId('msg'),
          notification_id: m.idempotencyKey,
          business_id: m.businessId,
          environment: m.environment,
          payout_id: m.payoutId,
          channel: m.channel,
          destination: m.destination,
          language: m.language,
          subject: m.subject,
          body: m.body,
          claim_url: m.claimUrl,
        })
        .onConflict((oc) => oc.column('notification_id').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (inserted) return { providerMessageId: inserted.id, deduplicated: false };
      const first = await db
        .selectFrom('sandbox_notification_messages')
        .select('id')
        .where('notification_id', '=', m.idempotencyKey)
        .executeTakeFirstOrThrow();
      return { providerMessageId: first.id, deduplicated: true };
    },
  };
}
