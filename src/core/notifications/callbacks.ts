/**
 * Provider delivery callbacks (docs/notifications.md "Delivery status"), after the route checked the
 * signature. Owns `notification_callbacks`: one row per callback digest, so a replay changes nothing.
 */
import { createHash } from 'node:crypto';
import type { Core } from '../context';
import { applyMessageStatus, findMessage } from './messages';
import { notificationCallbacks } from './metrics';
import { onMessageFailed, recordNotificationDelivered, recordNotificationSent } from './payout-notifications';
import { recordOptOut, removeOptOut } from './opt-outs';
import { maskDestination } from './templates';

export type CallbackOutcome = 'applied' | 'stale' | 'unknown_message' | 'ignored';

export interface ProviderStatusReport {
  provider: string;
  providerMessageId: string | null;
  /** Our reference (`nmsg_…`) when the provider carries it back. */
  reference: string | null;
  providerStatus: string;
  /** Null: an intermediate status that moves nothing. */
  status: 'sent' | 'delivered' | 'failed' | null;
  failureCode: string | null;
  error: string | null;
}

/** sha256 hex over provider, URL and raw body. */
export function callbackDigest(provider: string, url: string, rawBody: string): string {
  return createHash('sha256').update(provider).update('\n').update(url).update('\n').update(rawBody).digest('hex');
}

/** False when seen before (a replay: refuse it). */
export async function claimCallback(core: Core, provider: string, digest: string): Promise<boolean> {
  const row = await core.db.insertInto('notification_callbacks').values({ digest, provider, outcome: 'received' }).onConflict((oc) => oc.column('digest').doNothing()).returning('digest').executeTakeFirst();
  return row !== undefined;
}

export function twilioStatus(s: string): ProviderStatusReport['status'] {
  if (s === 'sent') return 'sent';
  if (s === 'delivered' || s === 'read') return 'delivered';
  if (s === 'undelivered' || s === 'failed') return 'failed';
  return null;
}

export function whatsappStatus(s: string): ProviderStatusReport['status'] {
  if (s === 'sent') return 'sent';
  if (s === 'delivered' || s === 'read') return 'delivered';
  if (s === 'failed') return 'failed';
  return null;
}

/** Moves the message (and notification) forward only; never throws for an unknown message. */
export async function applyProviderStatus(core: Core, r: ProviderStatusReport): Promise<CallbackOutcome> {
  const outcome = await apply(core, r);
  notificationCallbacks.inc({ provider: r.provider, outcome });
  core.log.info({ provider: r.provider, providerMessageId: r.providerMessageId, reference: r.reference, providerStatus: r.providerStatus, outcome }, 'notification: provider status callback');
  return outcome;
}

async function apply(core: Core, r: ProviderStatusReport): Promise<CallbackOutcome> {
  const msg = await findMessage(core.db, r.provider, r.providerMessageId, r.reference);
  if (!msg) return 'unknown_message';
  if (!r.status) return 'ignored';
  if (r.status === 'failed') {
    const moved = await applyMessageStatus(core.db, msg, 'failed', { providerStatus: r.providerStatus, providerMessageId: r.providerMessageId, failureCode: r.failureCode, error: r.error }, core.now());
    if (!moved) return 'stale';
    await onMessageFailed(core, moved, { providerStatus: r.providerStatus, failureCode: r.failureCode, error: r.error });
    return 'applied';
  }
  const moved = await applyMessageStatus(core.db, msg, r.status, { providerStatus: r.providerStatus, providerMessageId: r.providerMessageId }, core.now());
  if (!moved) return 'stale';
  const pmid = moved.provider_message_id ?? r.providerMessageId ?? moved.id;
  if (r.status === 'sent') await recordNotificationSent(core, moved.notification_id, moved.payout_id, moved.provider, pmid);
  else {
    const note = moved.purpose === 'fallback' ? `Delivered by ${moved.channel.toUpperCase()} instead: the first channel could not reach the number` : null;
    await recordNotificationDelivered(core, moved.notification_id, moved.provider, pmid, note);
  }
  return 'applied';
}

const STOP_WORDS = new Set(['STOP', 'STOPALL', 'STOP ALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'OPT-OUT', 'REVOKE']);
const START_WORDS = new Set(['START', 'UNSTOP', 'YES']);

/** Twilio inbound STOP records an SMS opt-out, START removes it; anything else changes nothing. */
export async function applyTwilioInbound(core: Core, p: { from: string; body: string; optOutType: string | null }): Promise<'opt_out' | 'opt_in' | 'ignored'> {
  const word = p.body.trim().toUpperCase();
  const type = (p.optOutType ?? '').toUpperCase();
  let outcome: 'opt_out' | 'opt_in' | 'ignored' = 'ignored';
  if (type === 'STOP' || (!type && STOP_WORDS.has(word))) {
    await recordOptOut(core.db, 'live', 'sms', p.from, 'twilio:STOP');
    outcome = 'opt_out';
  } else if (type === 'START' || (!type && START_WORDS.has(word))) {
    await removeOptOut(core.db, 'live', 'sms', p.from);
    outcome = 'opt_in';
  }
  notificationCallbacks.inc({ provider: 'twilio', outcome });
  core.log.info({ from: maskDestination(p.from), outcome }, 'notification: Twilio inbound message');
  return outcome;
}
