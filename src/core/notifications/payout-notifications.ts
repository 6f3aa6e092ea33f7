/**
 * Recipient notifications of claim-link payouts (docs/surface-c.md; docs/architecture.md "Surfaces":
 * a Surface C payout with a delivery channel is a claim-link payout that notifies the recipient).
 *
 * Lifecycle of a `notifications` row (one per payout, id `ntf_…`):
 * | status    | when                                                                               |
 * |-----------|------------------------------------------------------------------------------------|
 * | pending   | written with the payout, in its transaction ({@link insertPayoutNotification})      |
 * | sent      | the provider accepted it; event `payout.notification_sent` in the same transaction  |
 * | failed    | the provider refused it, it is not configured, or retries ran out (`error` says why) |
 * | canceled  | the payout ended (canceled, failed) before the message went out: nothing is sent    |
 *
 * Delivery is a step of the payout workflow (an activity with retries: activities/notifications.ts)
 * that runs after the claim link opens. It is at least once towards the provider and exactly once
 * in effect: every provider call carries the notification id as its idempotency key and the
 * provider delivers once per key (the sandbox provider's unique column; the live gateway's
 * `Idempotency-Key` header). So a worker that dies between the provider call and recording `sent`
 * makes the retry call the provider again with the same key, which answers the first message
 * instead of sending a second one, and the retry records `sent` and emits the event once (dedupe
 * key `payout:{id}:notification_sent`).
 */
import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { DbOrTx, Environment } from '../../db/schema';
import type { NotificationsTable, NotificationStatus } from '../../db/tables/notifications';
import { validationError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { formatAmount } from '../../domain/money';
import { isE164, phoneCountry } from '../../domain/recipients';
import type { Core } from '../context';
import { emitEvent } from '../events';
import { renderPayout } from '../payouts';
import { liveNotificationProvider } from './live-provider';
import { type NotificationProvider, NotificationProviderError } from './provider';
import { sandboxNotificationProvider } from './sandbox-provider';
import {
  maskDestination,
  NOTIFICATION_CHANNELS,
  type NotificationChannel,
  type NotificationLanguage,
  renderNotification,
  resolveLanguage,
} from './templates';

/** A stored notification. */
export type NotificationRow = Selectable<NotificationsTable>;

/** Event emitted when a notification was delivered to its provider (Surface C name as well). */
export const NOTIFICATION_SENT_EVENT = 'payout.notification_sent';

/** Where and how to notify a payout's recipient. */
export interface NotificationRequest {
  channel: NotificationChannel;
  /** E.164 phone number (whatsapp, sms) or e-mail address (email). */
  destination: string;
  /** The caller's language tag (`es`, `pt-BR`), if any; see templates.ts for the fallback. */
  language?: string | null;
  /** The recipient's country (ISO 3166-1 alpha-2), for the language fallback, if known. */
  country?: string | null;
}

const emailSchema = z.email();

/**
 * Checks a notification request: `channel` one of whatsapp, sms, email; `destination` an E.164
 * phone number for whatsapp and sms, an e-mail address for email. Throws 400 validation_error
 * naming `params.channel` / `params.destination`. Returns the destination trimmed.
 */
export function validateNotificationRequest(
  req: { channel: unknown; destination: unknown },
  params: { channel: string; destination: string } = { channel: 'channel', destination: 'destination' },
): { channel: NotificationChannel; destination: string } {
  if (typeof req.channel !== 'string' || !(NOTIFICATION_CHANNELS as readonly string[]).includes(req.channel)) {
    throw validationError(params.channel, `${params.channel} must be one of: ${NOTIFICATION_CHANNELS.join(', ')}`);
  }
  const channel = req.channel as NotificationChannel;
  const destination = typeof req.destination === 'string' ? req.destination.trim() : '';
  if (channel === 'email') {
    if (!destination || destination.length > 254 || !emailSchema.safeParse(destination).success) {
      throw validationError(params.destination, `${params.destination} must be an e-mail address for delivery by email`);
    }
  } else if (!destination || !isE164(destination)) {
    throw validationError(params.destination, `${params.destination} must be a phone number in E.164 format (e.g. +525512345678) for delivery by ${channel}`);
  }
  return { channel, destination };
}

/**
 * Records that payout `payout.id` notifies its recipient, in the caller's transaction (the one
 * that inserts the payout), status pending. The language is resolved now (templates.ts fallback,
 * with the destination phone's country before `req.country`). Idempotent per payout: a second call
 * returns the first row. The request must have passed {@link validateNotificationRequest}.
 */
export async function insertPayoutNotification(
  tx: DbOrTx,
  core: Core,
  payout: { id: string; business_id: string; environment: Environment },
  req: NotificationRequest,
): Promise<NotificationRow> {
  const country = (req.channel !== 'email' ? phoneCountry(req.destination) : null) ?? req.country ?? null;
  const now = core.now();
  await tx
    .insertInto('notifications')
    .values({
      id: newId('ntf'),
      business_id: payout.business_id,
      environment: payout.environment,
      payout_id: payout.id,
      channel: req.channel,
      destination: req.destination,
      requested_language: req.language ?? null,
      language: resolveLanguage(req.language, country),
      status: 'pending',
      provider: null,
      provider_message_id: null,
      attempts: 0,
      error: null,
      sent_at: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('payout_id').doNothing())
    .execute();
  return tx.selectFrom('notifications').selectAll().where('payout_id', '=', payout.id).executeTakeFirstOrThrow();
}

/** A payout's notification on the wire (docs/surface-c.md: `{channel, destination (masked), status, sent_at}`). */
export interface WireNotification {
  channel: NotificationChannel;
  /** Masked: `+52•••••5678`, `a•••@example.com`. */
  destination: string;
  /** Template language used (`en`, `es`, `pt`). */
  language: NotificationLanguage;
  status: NotificationStatus;
  /** ISO 8601 UTC, when the provider accepted the message; null until then. */
  sent_at: string | null;
  /** Why it failed (status failed), else null. */
  error: string | null;
}

/** The wire form of a notification row. */
export function renderNotificationState(row: NotificationRow): WireNotification {
  return {
    channel: row.channel as NotificationChannel,
    destination: maskDestination(row.destination),
    language: row.language as NotificationLanguage,
    status: row.status,
    sent_at: row.sent_at ? row.sent_at.toISOString() : null,
    error: row.error,
  };
}

/** The notifications of these payouts, by payout id (one query). */
export async function notificationsByPayout(db: DbOrTx, payoutIds: readonly string[]): Promise<Map<string, NotificationRow>> {
  if (payoutIds.length === 0) return new Map();
  const rows = await db.selectFrom('notifications').selectAll().where('payout_id', 'in', [...payoutIds]).execute();
  return new Map(rows.map((r) => [r.payout_id, r]));
}

/**
 * The provider of an environment: the sandbox recorder for sandbox, the live HTTP gateway
 * configured by NOTIFICATIONS_LIVE_URL / NOTIFICATIONS_LIVE_TOKEN (live-provider.ts) for live.
 */
export function notificationProviderFor(core: Core, environment: Environment, env: NodeJS.ProcessEnv = process.env): NotificationProvider {
  return environment === 'sandbox' ? sandboxNotificationProvider(core.db) : liveNotificationProvider(env);
}

/** What {@link sendPayoutNotification} did. */
export type SendNotificationOutcome =
  | { result: 'sent'; notificationId: string; providerMessageId: string; deduplicated: boolean }
  | { result: 'already_sent'; notificationId: string }
  | { result: 'canceled'; notificationId: string }
  | { result: 'failed'; notificationId: string }
  | { result: 'none' };

const PAYOUT_ENDED = new Set(['canceled', 'failed', 'refunded']);

/**
 * Delivers the notification of payout `payoutId` (the notification step's body): does nothing
 * when the payout has none (`none`) or it is already sent / failed / canceled; marks it canceled
 * when the payout ended before it went out; else renders the template (amount = the payout's
 * destination amount and currency, sender = the business's name, the claim link and its expiry),
 * counts the attempt, calls `provider` with the notification id as idempotency key, and records
 * `sent` with the provider's message id plus the event `payout.notification_sent` in one
 * transaction (idempotent). Throws {@link NotificationProviderError} when the provider did not
 * deliver (the caller retries retryable ones), and Error when the claim link is not open yet.
 * `opts.afterProviderCall` runs between the provider call and the recording (tests simulate a
 * crash there).
 */
export async function sendPayoutNotification(
  core: Core,
  payoutId: string,
  opts: { provider?: NotificationProvider; afterProviderCall?: () => void | Promise<void> } = {},
): Promise<SendNotificationOutcome> {
  const n = await core.db.selectFrom('notifications').selectAll().where('payout_id', '=', payoutId).executeTakeFirst();
  if (!n) return { result: 'none' };
  if (n.status === 'sent') return { result: 'already_sent', notificationId: n.id };
  if (n.status === 'canceled' || n.status === 'failed') return { result: n.status, notificationId: n.id };

  const payout = await core.db
    .selectFrom('payouts')
    .innerJoin('businesses', 'businesses.id', 'payouts.business_id')
    .select([
      'payouts.status',
      'payouts.claim_token',
      'payouts.claim_expires_at',
      'payouts.destination_amount',
      'payouts.destination_currency',
      'businesses.name as business_name',
    ])
    .where('payouts.id', '=', payoutId)
    .executeTakeFirstOrThrow();
  if (PAYOUT_ENDED.has(payout.status)) {
    await core.db
      .updateTable('notifications')
      .set({ status: 'canceled', error: `The payout is ${payout.status}; nothing was sent`, updated_at: core.now() })
      .where('id', '=', n.id)
      .where('status', '=', 'pending')
      .execute();
    return { result: 'canceled', notificationId: n.id };
  }
  if (!payout.claim_token) throw new Error(`payout ${payoutId} has no claim link yet; its notification waits for it`);

  const claimUrl = `${core.config.publicUrl}/c/${payout.claim_token}`;
  const channel = n.channel as NotificationChannel;
  const language = n.language as NotificationLanguage;
  const message = renderNotification(language, channel, {
    amount: formatAmount(payout.destination_amount, payout.destination_currency),
    currency: payout.destination_currency,
    senderName: payout.business_name,
    claimUrl,
    expiresAt: payout.claim_expires_at,
  });
  const provider = opts.provider ?? notificationProviderFor(core, n.environment);
  await core.db
    .updateTable('notifications')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), provider: provider.name, updated_at: core.now() }))
    .where('id', '=', n.id)
    .execute();
  const sent = await provider.send({
    idempotencyKey: n.id,
    businessId: n.business_id,
    environment: n.environment,
    payoutId,
    channel,
    destination: n.destination,
    language,
    subject: message.subject,
    body: message.body,
    claimUrl,
  });
  await opts.afterProviderCall?.();
  await recordNotificationSent(core, n.id, payoutId, provider.name, sent.providerMessageId);
  return { result: 'sent', notificationId: n.id, providerMessageId: sent.providerMessageId, deduplicated: sent.deduplicated };
}

/**
 * pending -> sent with sent_at and the provider's message id, and the event
 * `payout.notification_sent` (data: the payout in the core's wire shape plus `notification`;
 * dedupe `payout:{id}:notification_sent`), in one transaction. Idempotent.
 */
export async function recordNotificationSent(core: Core, notificationId: string, payoutId: string, provider: string, providerMessageId: string): Promise<void> {
  await core.db.transaction().execute(async (tx) => {
    const now = core.now();
    const updated = await tx
      .updateTable('notifications')
      .set({ status: 'sent', sent_at: now, provider, provider_message_id: providerMessageId, error: null, updated_at: now })
      .where('id', '=', notificationId)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
    if (!updated) return;
    const payout = await tx.selectFrom('payouts').selectAll().where('id', '=', payoutId).executeTakeFirstOrThrow();
    await emitEvent(tx, {
      businessId: payout.business_id,
      environment: payout.environment,
      type: NOTIFICATION_SENT_EVENT,
      objectType: 'payout',
      objectId: payoutId,
      data: { ...renderPayout(payout, undefined, core.config.publicUrl), notification: renderNotificationState(updated) },
      dedupeKey: `payout:${payoutId}:notification_sent`,
    });
  });
}

/**
 * pending -> failed with `error` (the provider refused, is not configured, or retries ran out).
 * The payout itself is unaffected: it keeps waiting for its claim. Idempotent.
 */
export async function markPayoutNotificationFailed(core: Core, payoutId: string, error: string): Promise<void> {
  await core.db
    .updateTable('notifications')
    .set({ status: 'failed', error: error.slice(0, 500), updated_at: core.now() })
    .where('payout_id', '=', payoutId)
    .where('status', '=', 'pending')
    .execute();
}

export { NotificationProviderError };
