/**
 * Recipient notifications of claim-link payouts (docs/surface-c.md; docs/architecture.md "Surfaces":
 * a Surface C payout with a delivery channel is a claim-link payout that notifies the recipient).
 *
 * Lifecycle of a `notifications` row (one per payout, id `ntf_…`), forward only:
 * | status    | when                                                                               |
 * |-----------|------------------------------------------------------------------------------------|
 * | pending   | written with the payout, in its transaction ({@link insertPayoutNotification})      |
 * | sent      | a provider accepted a message; event `payout.notification_sent` in the same transaction |
 * | delivered | a provider reported it delivered (callbacks.ts); `payout.notification_delivered`    |
 * | failed    | refused, undelivered, opted out (STOP), not configured, or retries ran out (`failure_code`, `error`); `payout.notification_failed` |
 * | canceled  | the payout ended (canceled, failed) before the message went out: nothing is sent    |
 *
 * Delivery is a step of the payout workflow (an activity with retries: activities/notifications.ts)
 * that runs after the claim link opens. Exactly once in effect (docs/notifications.md "Exactly
 * once"): each provider message is recorded in notification_messages (messages.ts) with our own
 * reference BEFORE the provider is called, and a retry after an unknown outcome (a worker that died
 * between the provider call and the recording, a timeout) looks the message up through the
 * provider instead of sending it again; the sandbox and gateway providers also deduplicate by the
 * notification id. `sent` and its event are recorded once (dedupe key
 * `payout:{id}:notification_sent`). A WhatsApp message the number cannot receive falls back to
 * one SMS ({@link onMessageFailed}, {@link sendPendingFallbacks}).
 */
import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { DbOrTx, Environment } from '../../db/schema';
import type { NotificationsTable } from '../../db/tables/notifications';
import { validationError } from '../../domain/errors';
import { parseDuration } from '../../domain/durations';
import { newId } from '../../domain/ids';
import { formatAmount } from '../../domain/money';
import { isE164, phoneCountry } from '../../domain/recipients';
import type { Core } from '../context';
import { emitEvent } from '../events';
import { payoutFromRow } from '../payouts';
import { payoutNotificationEvent } from '../../domain/domain-events';
import type { PayoutNotification } from '../../domain/notifications';
import { liveProviderFor, liveProvidersOf } from './live-providers';
import {
  applyMessageStatus,
  claimMessageAttempt,
  endMessageAttemptUnsent,
  ensureMessage,
  markMessageSent,
  type NotificationMessageRow,
  pendingFallbackMessages,
} from './messages';
import { notificationSends } from './metrics';
import { hasOptedOut } from './opt-outs';
import { type NotificationProvider, NotificationProviderError, type OutgoingNotification, type SentNotification } from './provider';
import { WHATSAPP_CANNOT_RECEIVE } from '../../notifications/whatsapp';
import {
  formatAmountFor,
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
  payout: { id: string; businessId: string; environment: Environment },
  req: NotificationRequest,
): Promise<NotificationRow> {
  const country = (req.channel !== 'email' ? phoneCountry(req.destination) : null) ?? req.country ?? null;
  const now = core.now();
  await tx
    .insertInto('notifications')
    .values({
      id: newId('ntf'),
      business_id: payout.businessId,
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

/** The domain form of a notification row (destination masked). */
export function notificationFromRow(row: NotificationRow): PayoutNotification {
  return {
    channel: row.channel as NotificationChannel,
    destination: maskDestination(row.destination),
    language: row.language as NotificationLanguage,
    status: row.status,
    sentAt: row.sent_at,
    deliveredAt: row.delivered_at,
    error: row.error,
    failureCode: row.failure_code,
  };
}

/** The notifications of these payouts, by payout id (one query). */
export async function notificationsByPayout(db: DbOrTx, payoutIds: readonly string[]): Promise<Map<string, PayoutNotification>> {
  if (payoutIds.length === 0) return new Map();
  const rows = await db.selectFrom('notifications').selectAll().where('payout_id', 'in', [...payoutIds]).execute();
  return new Map(rows.map((r) => [r.payout_id, notificationFromRow(r)]));
}

/**
 * The provider of an environment and channel: the sandbox recorder for sandbox; for live the
 * channel's provider (live-providers.ts: SMTP, Twilio, WhatsApp Cloud API, else the generic gateway).
 */
export function notificationProviderFor(core: Core, environment: Environment, channel: NotificationChannel = 'email'): NotificationProvider {
  return environment === 'sandbox' ? core.sandbox.notificationProvider(core.db) : liveProviderFor(core, channel);
}

/** What {@link sendPayoutNotification} did. */
export type SendNotificationOutcome =
  | { result: 'sent'; notificationId: string; providerMessageId: string; deduplicated: boolean }
  | { result: 'already_sent'; notificationId: string }
  | { result: 'canceled'; notificationId: string }
  | { result: 'failed'; notificationId: string }
  | { result: 'none' };

const PAYOUT_ENDED = new Set(['canceled', 'failed', 'refunded']);

/** Seams of {@link sendPayoutNotification}: a provider instead of the environment's (every channel), and a hook between the provider call and the recording. */
export interface SendNotificationOptions {
  provider?: NotificationProvider;
  afterProviderCall?: () => void | Promise<void>;
}

/** Where a notification's message is going: the rendered message and the payout it is about. */
interface MessageContext {
  n: NotificationRow;
  claimUrl: string;
  language: NotificationLanguage;
  amount: string;
  senderName: string;
  expiresAt: Date | null;
  currency: string;
}

async function loadContext(core: Core, n: NotificationRow): Promise<{ ctx: MessageContext | null; payoutStatus: string }> {
  const payout = await core.db
    .selectFrom('payouts')
    .innerJoin('businesses', 'businesses.id', 'payouts.business_id')
    .select(['payouts.status', 'payouts.claim_token', 'payouts.claim_expires_at', 'payouts.destination_amount', 'payouts.destination_currency', 'businesses.name as business_name'])
    .where('payouts.id', '=', n.payout_id)
    .executeTakeFirstOrThrow();
  if (!payout.claim_token) return { ctx: null, payoutStatus: payout.status };
  return {
    payoutStatus: payout.status,
    ctx: {
      n,
      claimUrl: `${core.config.publicUrl}/c/${payout.claim_token}`,
      language: n.language as NotificationLanguage,
      amount: formatAmount(payout.destination_amount, payout.destination_currency),
      currency: payout.destination_currency,
      senderName: payout.business_name,
      expiresAt: payout.claim_expires_at,
    },
  };
}

function outgoing(ctx: MessageContext, msg: NotificationMessageRow): OutgoingNotification {
  const channel = msg.channel as NotificationChannel;
  const rendered = renderNotification(ctx.language, channel, {
    amount: ctx.amount,
    currency: ctx.currency,
    senderName: ctx.senderName,
    claimUrl: ctx.claimUrl,
    expiresAt: ctx.expiresAt,
  });
  return {
    idempotencyKey: msg.purpose === 'primary' ? ctx.n.id : `${ctx.n.id}:${msg.channel}`,
    reference: msg.id,
    businessId: ctx.n.business_id,
    environment: ctx.n.environment,
    payoutId: ctx.n.payout_id,
    channel,
    destination: msg.destination,
    language: ctx.language,
    subject: rendered.subject,
    body: rendered.body,
    claimUrl: ctx.claimUrl,
    templateParams: { amount: `${formatAmountFor(ctx.amount, ctx.language)} ${ctx.currency}`, senderName: ctx.senderName },
  };
}

/**
 * Delivers the notification of payout `payoutId` (the notification step's body): does nothing
 * when the payout has none (`none`) or it is already sent / delivered / failed / canceled; marks it
 * canceled when the payout ended before it went out; fails it with `opted_out` when its SMS number
 * answered STOP; else records the provider message (notification_messages, our reference) BEFORE
 * calling the provider, looks an earlier call with an unknown outcome up first (messages.ts,
 * docs/notifications.md "Exactly once"), and records `sent` with the provider's message id plus
 * the event `payout.notification_sent` in one transaction. A WhatsApp refusal for a number that
 * cannot receive it (131026, template paused / disabled) sends one SMS instead. Throws
 * {@link NotificationProviderError} when the provider did not deliver and calling again may
 * (the caller retries), and Error when the claim link is not open yet. `opts.afterProviderCall`
 * runs between the provider call and the recording (tests simulate a crash there).
 */
export async function sendPayoutNotification(core: Core, payoutId: string, opts: SendNotificationOptions = {}): Promise<SendNotificationOutcome> {
  const n = await core.db.selectFrom('notifications').selectAll().where('payout_id', '=', payoutId).executeTakeFirst();
  if (!n) return { result: 'none' };
  if (n.status === 'sent' || n.status === 'delivered') return { result: 'already_sent', notificationId: n.id };
  if (n.status === 'canceled' || n.status === 'failed') return { result: n.status, notificationId: n.id };

  const { ctx, payoutStatus } = await loadContext(core, n);
  if (PAYOUT_ENDED.has(payoutStatus)) {
    await core.db
      .updateTable('notifications')
      .set({ status: 'canceled', error: `The payout is ${payoutStatus}; nothing was sent`, updated_at: core.now() })
      .where('id', '=', n.id)
      .where('status', '=', 'pending')
      .execute();
    return { result: 'canceled', notificationId: n.id };
  }
  if (!ctx) throw new Error(`payout ${payoutId} has no claim link yet; its notification waits for it`);

  const channel = n.channel as NotificationChannel;
  if (channel === 'sms' && (await hasOptedOut(core.db, n.environment, 'sms', n.destination))) {
    await failNotification(core, n.id, OPTED_OUT, OPTED_OUT_MESSAGE);
    notificationSends.inc({ provider: 'none', channel, outcome: 'opted_out' });
    return { result: 'failed', notificationId: n.id };
  }
  const provider = opts.provider ?? notificationProviderFor(core, n.environment, channel);
  await core.db
    .updateTable('notifications')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), provider: provider.name, updated_at: core.now() }))
    .where('id', '=', n.id)
    .execute();
  const primary = await ensureMessage(
    core.db,
    { notificationId: n.id, payoutId, businessId: n.business_id, environment: n.environment, channel, destination: n.destination, purpose: 'primary', provider: provider.name },
    core.now(),
  );
  const out = await deliverMessage(core, ctx, primary, provider, opts);
  if (out.result !== 'fallback') return out;
  const fallback = await core.db.selectFrom('notification_messages').selectAll().where('notification_id', '=', n.id).where('channel', '=', 'sms').executeTakeFirstOrThrow();
  const smsProvider = opts.provider ?? notificationProviderFor(core, n.environment, 'sms');
  const second = await deliverMessage(core, ctx, fallback, smsProvider, opts);
  return second.result === 'fallback' ? { result: 'failed', notificationId: n.id } : second;
}

type DeliverOutcome = Exclude<SendNotificationOutcome, { result: 'none' | 'canceled' }> | { result: 'fallback'; notificationId: string };

/**
 * Sends one provider message exactly once in effect (docs/notifications.md "Exactly once"): a
 * message no longer `sending` is not sent again; one `in_flight` (an earlier call's outcome is
 * unknown) is looked up first; the attempt is recorded before the call; a definite refusal fails
 * the message (and the notification, or starts the SMS fallback).
 */
async function deliverMessage(core: Core, ctx: MessageContext, msg: NotificationMessageRow, provider: NotificationProvider, opts: SendNotificationOptions): Promise<DeliverOutcome> {
  const n = ctx.n;
  const channel = msg.channel;
  const masked = maskDestination(msg.destination);
  if (msg.status === 'failed') return { result: 'failed', notificationId: n.id };
  if (msg.status !== 'sending') {
    await recordNotificationSent(core, n.id, n.payout_id, msg.provider, msg.provider_message_id ?? msg.id);
    return { result: 'already_sent', notificationId: n.id };
  }
  const message = outgoing(ctx, msg);
  if (msg.in_flight && provider.lookup) {
    const look = await provider.lookup(message, msg.last_attempt_at ?? msg.updated_at);
    if (look.result === 'found' || look.result === 'unknowable') {
      const id = look.result === 'found' ? look.providerMessageId : (look.providerMessageId ?? msg.id);
      notificationSends.inc({ provider: provider.name, channel, outcome: look.result === 'found' ? 'found' : 'unknown' });
      core.log.info({ notificationId: n.id, messageId: msg.id, provider: provider.name, destination: masked, lookup: look.result }, 'notification: earlier attempt resolved by lookup; not sent again');
      await recordMessageAndNotificationSent(core, n, msg.id, provider.name, id, look.result === 'unknowable' ? look.reason : null);
      return { result: 'sent', notificationId: n.id, providerMessageId: id, deduplicated: true };
    }
    if (look.result === 'wait') {
      notificationSends.inc({ provider: provider.name, channel, outcome: 'retry' });
      throw new NotificationProviderError(`Earlier attempt's outcome unknown: ${look.reason}`, true, 'unavailable');
    }
  }
  // One caller per message calls a provider that cannot deduplicate (it has a lookup instead):
  // another attempt in flight (another process, or the relay's fallback sweep) holds the message
  // until it records its outcome or its lease (twice the provider timeout) runs out; this caller
  // retries later and then finds the message by lookup. A provider that deduplicates by our
  // idempotency key (sandbox, the HTTP gateway) needs no lease.
  const leaseMs = provider.lookup ? 2 * parseDuration(core.config.NOTIFY_PROVIDER_TIMEOUT) : 0;
  if (!(await claimMessageAttempt(core.db, msg.id, core.now(), leaseMs))) {
    notificationSends.inc({ provider: provider.name, channel, outcome: 'retry' });
    throw new NotificationProviderError('Another attempt at this message is under way', true, 'unavailable');
  }
  let sent: SentNotification;
  try {
    sent = await provider.send(message);
  } catch (err) {
    if (!(err instanceof NotificationProviderError)) throw err;
    if (!err.details.outcomeUnknown) await endMessageAttemptUnsent(core.db, msg.id, err.message, core.now());
    if (err.retryable) {
      notificationSends.inc({ provider: provider.name, channel, outcome: err.details.outcomeUnknown ? 'unknown' : 'retry' });
      core.log.warn({ notificationId: n.id, messageId: msg.id, provider: provider.name, destination: masked, code: err.details.providerCode }, 'notification: provider call to be retried');
      throw err;
    }
    notificationSends.inc({ provider: provider.name, channel, outcome: 'failed' });
    core.log.warn({ notificationId: n.id, messageId: msg.id, provider: provider.name, destination: masked, code: err.details.providerCode ?? err.code }, 'notification: provider refused the message');
    const fresh = await core.db.selectFrom('notification_messages').selectAll().where('id', '=', msg.id).executeTakeFirstOrThrow();
    const next = await onMessageFailed(core, fresh, { providerStatus: 'rejected', failureCode: err.details.providerCode ?? err.code, error: err.message });
    if (next === 'fallback') return { result: 'fallback', notificationId: n.id };
    if (err.code === 'not_configured') throw err;
    return { result: 'failed', notificationId: n.id };
  }
  await opts.afterProviderCall?.();
  notificationSends.inc({ provider: provider.name, channel, outcome: 'sent' });
  core.log.info({ notificationId: n.id, messageId: msg.id, provider: provider.name, destination: masked, providerMessageId: sent.providerMessageId }, 'notification: provider accepted the message');
  await recordMessageAndNotificationSent(core, n, msg.id, provider.name, sent.providerMessageId, null);
  return { result: 'sent', notificationId: n.id, providerMessageId: sent.providerMessageId, deduplicated: sent.deduplicated };
}

async function recordMessageAndNotificationSent(core: Core, n: NotificationRow, messageId: string, provider: string, providerMessageId: string, note: string | null): Promise<void> {
  await markMessageSent(core.db, messageId, providerMessageId, core.now(), note);
  await recordNotificationSent(core, n.id, n.payout_id, provider, providerMessageId);
}

/** Failure code of a notification not sent because its number answered STOP. */
export const OPTED_OUT = 'opted_out';
const OPTED_OUT_MESSAGE = 'The recipient replied STOP to an SMS from us on this number (opted out); no SMS was sent';

/**
 * After message `msg` failed (refused at send time, or reported undelivered / failed by its
 * provider): a primary WhatsApp message to a number that cannot receive it (131026, template
 * paused or disabled) gets one SMS fallback message recorded (sent by the caller or the relay's
 * fallback sweep) and answers `fallback`; otherwise the notification fails with the message's
 * code and emits `payout.notification_failed`, answering `failed`.
 */
export async function onMessageFailed(core: Core, msg: NotificationMessageRow, r: { providerStatus: string; failureCode: string | null; error: string | null }): Promise<'fallback' | 'failed'> {
  const moved = await applyMessageStatus(core.db, msg, 'failed', r, core.now());
  const row = moved ?? msg;
  const code = row.failure_code ?? r.failureCode;
  if (msg.purpose === 'primary' && msg.channel === 'whatsapp' && code && WHATSAPP_CANNOT_RECEIVE.has(code)) {
    const smsReady = msg.environment === 'sandbox' || liveProvidersOf(core).smsConfigured;
    if (await hasOptedOut(core.db, msg.environment, 'sms', msg.destination)) {
      await failNotification(core, msg.notification_id, OPTED_OUT, `WhatsApp cannot reach the number (${code}) and it opted out of SMS (replied STOP); nothing else was sent`);
      return 'failed';
    }
    if (smsReady) {
      await ensureMessage(
        core.db,
        { notificationId: msg.notification_id, payoutId: msg.payout_id, businessId: msg.business_id, environment: msg.environment, channel: 'sms', destination: msg.destination, purpose: 'fallback', provider: msg.environment === 'sandbox' ? 'sandbox' : liveProvidersOf(core).sms.name },
        core.now(),
      );
      await core.db
        .updateTable('notifications')
        .set({ error: `WhatsApp cannot reach the number (${code}); the recipient is sent one SMS instead`, failure_code: code, updated_at: core.now() })
        .where('id', '=', msg.notification_id)
        .where('status', 'in', ['pending', 'sent'])
        .execute();
      notificationSends.inc({ provider: msg.provider, channel: 'whatsapp', outcome: 'fallback' });
      core.log.info({ notificationId: msg.notification_id, messageId: msg.id, destination: maskDestination(msg.destination), code }, 'notification: WhatsApp cannot reach the number; falling back to one SMS');
      return 'fallback';
    }
  }
  await failNotification(core, msg.notification_id, code ?? 'failed', row.error ?? r.error ?? 'The provider reported the message failed');
  return 'failed';
}

/**
 * Sends the SMS fallback messages still pending (the relay's sweep, src/core/relay-tasks.ts):
 * each with the same exactly-once rules as the notification step. A message whose notification's
 * payout ended is not sent. Errors are logged (masked) and retried on the next sweep, waiting
 * 2^attempts seconds (at most 5 minutes) between calls; after an hour the notification fails.
 */
export async function sendPendingFallbacks(core: Core): Promise<number> {
  let done = 0;
  for (const msg of await pendingFallbackMessages(core.db)) {
    const waitMs = Math.min(300_000, 1000 * 2 ** msg.attempts);
    if (msg.last_attempt_at && core.now().getTime() - msg.last_attempt_at.getTime() < waitMs && !msg.in_flight) continue;
    const n = await core.db.selectFrom('notifications').selectAll().where('id', '=', msg.notification_id).executeTakeFirstOrThrow();
    const { ctx, payoutStatus } = await loadContext(core, n);
    if (!ctx || PAYOUT_ENDED.has(payoutStatus) || n.status === 'failed' || n.status === 'canceled' || n.status === 'delivered') {
      await applyMessageStatus(core.db, msg, 'failed', { providerStatus: null, failureCode: 'not_needed', error: 'The notification no longer needs a fallback' }, core.now());
      continue;
    }
    if (core.now().getTime() - msg.created_at.getTime() > 3_600_000) {
      await onMessageFailed(core, msg, { providerStatus: 'expired', failureCode: 'retries_exhausted', error: 'The SMS fallback could not be sent within an hour' });
      continue;
    }
    if (await hasOptedOut(core.db, n.environment, 'sms', msg.destination)) {
      await onMessageFailed(core, msg, { providerStatus: 'opted_out', failureCode: OPTED_OUT, error: OPTED_OUT_MESSAGE });
      continue;
    }
    try {
      await deliverMessage(core, ctx, msg, notificationProviderFor(core, n.environment, 'sms'), {});
      done++;
    } catch (err) {
      core.log.warn({ notificationId: n.id, messageId: msg.id, destination: maskDestination(msg.destination), err: (err as Error).message }, 'notification: SMS fallback to be retried');
    }
  }
  return done;
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
    await emitNotificationEvent(tx, core, updated, NOTIFICATION_SENT_EVENT);
  });
}

/** Event emitted when a provider reported the message delivered (docs/notifications.md "Events"). */
export const NOTIFICATION_DELIVERED_EVENT = 'payout.notification_delivered';
/** Event emitted when the notification finally failed: refused, undelivered, opted out, or retries ran out. */
export const NOTIFICATION_FAILED_EVENT = 'payout.notification_failed';

async function emitNotificationEvent(tx: DbOrTx, core: Core, n: NotificationRow, type: `payout.${string}`): Promise<void> {
  const payout = await tx.selectFrom('payouts').selectAll().where('id', '=', n.payout_id).executeTakeFirstOrThrow();
  await emitEvent(
    tx,
    payoutNotificationEvent({ businessId: payout.business_id, environment: payout.environment }, type, payoutFromRow(payout, core.config.publicUrl), notificationFromRow(n)),
  );
}

/**
 * pending | sent -> delivered with delivered_at (a provider reported its message delivered or
 * read; `note`, e.g. that the SMS fallback delivered it, becomes `error`, failure_code is cleared) and the event `payout.notification_delivered` (dedupe `payout:{id}:notification_delivered`),
 * in one transaction. Never moves a delivered, failed or canceled notification. Idempotent.
 */
export async function recordNotificationDelivered(core: Core, notificationId: string, provider: string, providerMessageId: string | null, note: string | null = null): Promise<boolean> {
  return core.db.transaction().execute(async (tx) => {
    const now = core.now();
    const updated = await tx
      .updateTable('notifications')
      .set((eb) => ({
        status: 'delivered',
        delivered_at: now,
        sent_at: eb.fn.coalesce('sent_at', eb.val(now)),
        provider,
        provider_message_id: eb.fn.coalesce(eb.val(providerMessageId), 'provider_message_id'),
        error: note,
        failure_code: null,
        updated_at: now,
      }))
      .where('id', '=', notificationId)
      .where('status', 'in', ['pending', 'sent'])
      .returningAll()
      .executeTakeFirst();
    if (!updated) return false;
    await emitNotificationEvent(tx, core, updated, NOTIFICATION_DELIVERED_EVENT);
    return true;
  });
}

/**
 * pending | sent -> failed with `failureCode` and `error`, and the event
 * `payout.notification_failed` (dedupe `payout:{id}:notification_failed`), in one transaction.
 * The payout itself is unaffected: it keeps waiting for its claim. Idempotent.
 */
export async function failNotification(core: Core, notificationId: string, failureCode: string, error: string): Promise<boolean> {
  return core.db.transaction().execute(async (tx) => {
    const updated = await tx
      .updateTable('notifications')
      .set({ status: 'failed', failure_code: failureCode.slice(0, 64), error: error.slice(0, 500), updated_at: core.now() })
      .where('id', '=', notificationId)
      .where('status', 'in', ['pending', 'sent'])
      .returningAll()
      .executeTakeFirst();
    if (!updated) return false;
    await emitNotificationEvent(tx, core, updated, NOTIFICATION_FAILED_EVENT);
    return true;
  });
}

/**
 * pending -> failed with `error` (the provider refused, is not configured, or retries ran out),
 * failure code `not_delivered`, and `payout.notification_failed`. The payout itself is unaffected:
 * it keeps waiting for its claim. Idempotent.
 */
export async function markPayoutNotificationFailed(core: Core, payoutId: string, error: string): Promise<void> {
  const n = await core.db.selectFrom('notifications').select(['id', 'status']).where('payout_id', '=', payoutId).executeTakeFirst();
  if (!n || n.status !== 'pending') return;
  await failNotification(core, n.id, 'not_delivered', error);
}

export { NotificationProviderError };
