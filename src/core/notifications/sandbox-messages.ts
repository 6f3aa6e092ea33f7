/**
 * Reading what the sandbox provider recorded (docs/surface-c.md: "the sandbox provider records every message
 * so that a tester can read it"): `GET {sandbox_base}/sandbox/notifications`.
 */
import { paginate } from '../paging';
import type { Caller, Core } from '../context';
import type { NotificationChannel, NotificationLanguage } from './templates';

/** A recorded sandbox message (unmasked: the tester reads what the recipient would receive). */
export interface WireSandboxNotification {
  /** `msg_…`: the sandbox provider's message id. */
  id: string;
  object: 'sandbox_notification';
  /** `ntf_…`: the notification (and idempotency key) it was sent for. */
  notification_id: string;
  payout_id: string;
  channel: NotificationChannel;
  destination: string;
  language: NotificationLanguage;
  /** E-mail subject; null for whatsapp and sms. */
  subject: string | null;
  body: string;
  /** The claim link the body carries. */
  claim_url: string;
  /** ISO 8601 UTC. */
  created_at: string;
}

/**
 * The caller's recorded messages (business and environment scoped), newest first, optionally of
 * one payout; list envelope with cursor paging (`limit` 1..200). 400 validation_error (`cursor`)
 * for a cursor we did not issue.
 */
export async function listSandboxNotifications(
  core: Core,
  caller: Caller,
  q: { payoutId?: string; limit: number; cursor?: string },
): Promise<{ data: WireSandboxNotification[]; next_cursor: string | null }> {
  let query = core.db
    .selectFrom('sandbox_notification_messages')
    .selectAll()
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment);
  if (q.payoutId) query = query.where('payout_id', '=', q.payoutId);
  const page = await paginate(query, 'id', { limit: q.limit, cursor: q.cursor });
  return {
    data: page.rows.map((r) => ({
      id: r.id,
      object: 'sandbox_notification' as const,
      notification_id: r.notification_id,
      payout_id: r.payout_id,
      channel: r.channel as NotificationChannel,
      destination: r.destination,
      language: r.language as NotificationLanguage,
      subject: r.subject,
      body: r.body,
      claim_url: r.claim_url,
      created_at: (r.created_at instanceof Date ? r.created_at : new Date(String(r.created_at))).toISOString(),
    })),
    next_cursor: page.next_cursor,
  };
}
