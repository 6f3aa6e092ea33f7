/**
 * Provider messages (`notification_messages`, owned here; docs/notifications.md "Exactly once"). A row
 * is recorded BEFORE its provider is called; unique per (notification, channel). Statuses only move
 * forward: sending < sent < delivered | failed.
 */
import type { Selectable } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { NotificationMessagesTable, NotificationMessageStatus } from '../../db/tables/notifications';
import { newId } from '../../domain/ids';

export type NotificationMessageRow = Selectable<NotificationMessagesTable>;

const RANK: Record<NotificationMessageStatus, number> = { sending: 0, sent: 1, delivered: 2, failed: 2 };

export function isForwardMove(from: NotificationMessageStatus, to: NotificationMessageStatus): boolean {
  return RANK[to] > RANK[from];
}

/** The message of `notificationId` on `channel`, recorded (status sending) if none. Idempotent. */
export async function ensureMessage(
  db: DbOrTx,
  m: { notificationId: string; payoutId: string; businessId: string; environment: 'live' | 'sandbox'; channel: string; destination: string; purpose: 'primary' | 'fallback'; provider: string },
  now: Date,
): Promise<NotificationMessageRow> {
  await db
    .insertInto('notification_messages')
    .values({
      id: newId('nmsg'),
      notification_id: m.notificationId,
      payout_id: m.payoutId,
      business_id: m.businessId,
      environment: m.environment,
      channel: m.channel,
      destination: m.destination,
      purpose: m.purpose,
      provider: m.provider,
      status: 'sending',
      last_attempt_at: null,
      provider_message_id: null,
      provider_status: null,
      failure_code: null,
      error: null,
      sent_at: null,
      delivered_at: null,
      failed_at: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['notification_id', 'channel']).doNothing())
    .execute();
  return db.selectFrom('notification_messages').selectAll().where('notification_id', '=', m.notificationId).where('channel', '=', m.channel).executeTakeFirstOrThrow();
}

/** Claims the next call of `id` (committed before it) when no attempt is in flight or it began over `leaseMs` ago; one caller wins. */
export async function claimMessageAttempt(db: DbOrTx, id: string, now: Date, leaseMs: number): Promise<boolean> {
  const claimed = await db
    .updateTable('notification_messages')
    .set((eb) => ({ in_flight: true, attempts: eb('attempts', '+', 1), last_attempt_at: now, updated_at: now }))
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .$if(leaseMs > 0, (qb) => qb.where((eb) => eb.or([eb('in_flight', '=', false), eb('last_attempt_at', 'is', null), eb('last_attempt_at', '<=', new Date(now.getTime() - leaseMs))])))
    .returning('id')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** The last call certainly sent nothing: sending again is safe. */
export async function endMessageAttemptUnsent(db: DbOrTx, id: string, error: string, now: Date): Promise<void> {
  await db.updateTable('notification_messages').set({ in_flight: false, error: error.slice(0, 500), updated_at: now }).where('id', '=', id).where('status', '=', 'sending').execute();
}

/** sending -> sent; returns the row when it moved. */
export async function markMessageSent(db: DbOrTx, id: string, providerMessageId: string | null, now: Date, note: string | null = null): Promise<NotificationMessageRow | undefined> {
  return db
    .updateTable('notification_messages')
    .set((eb) => ({
      status: 'sent',
      in_flight: false,
      provider_message_id: eb.fn.coalesce('provider_message_id', eb.val(providerMessageId)),
      sent_at: now,
      error: note,
      updated_at: now,
    }))
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .returningAll()
    .executeTakeFirst();
}

/** Applies a provider-reported status, forward only; returns undefined when nothing changed. */
export async function applyMessageStatus(
  db: DbOrTx,
  row: NotificationMessageRow,
  to: NotificationMessageStatus,
  r: { providerStatus: string | null; providerMessageId?: string | null; failureCode?: string | null; error?: string | null },
  now: Date,
): Promise<NotificationMessageRow | undefined> {
  if (!isForwardMove(row.status, to)) {
    if (r.providerStatus && row.status === to) {
      await db.updateTable('notification_messages').set({ provider_status: r.providerStatus, updated_at: now }).where('id', '=', row.id).execute();
    }
    return undefined;
  }
  return db
    .updateTable('notification_messages')
    .set((eb) => ({
      status: to,
      in_flight: false,
      provider_status: r.providerStatus,
      provider_message_id: eb.fn.coalesce('provider_message_id', eb.val(r.providerMessageId ?? null)),
      ...(to === 'sent' || row.sent_at === null ? { sent_at: now } : {}),
      ...(to === 'delivered' ? { delivered_at: now } : {}),
      ...(to === 'failed' ? { failed_at: now, failure_code: r.failureCode ?? null, error: (r.error ?? null)?.slice(0, 500) ?? null } : {}),
      updated_at: now,
    }))
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .returningAll()
    .executeTakeFirst();
}

/** By `providerMessageId`, else by our `reference` (a callback before we recorded the send). */
export async function findMessage(db: DbOrTx, provider: string, providerMessageId: string | null, reference: string | null): Promise<NotificationMessageRow | undefined> {
  if (providerMessageId) {
    const byId = await db.selectFrom('notification_messages').selectAll().where('provider', '=', provider).where('provider_message_id', '=', providerMessageId).executeTakeFirst();
    if (byId) return byId;
  }
  if (reference) return db.selectFrom('notification_messages').selectAll().where('id', '=', reference).where('provider', '=', provider).executeTakeFirst();
  return undefined;
}

export async function pendingFallbackMessages(db: DbOrTx, limit = 20): Promise<NotificationMessageRow[]> {
  return db.selectFrom('notification_messages').selectAll().where('status', '=', 'sending').where('purpose', '=', 'fallback').orderBy('created_at').limit(limit).execute();
}

export async function messagesOfNotification(db: DbOrTx, notificationId: string): Promise<NotificationMessageRow[]> {
  return db.selectFrom('notification_messages').selectAll().where('notification_id', '=', notificationId).orderBy('created_at').execute();
}
