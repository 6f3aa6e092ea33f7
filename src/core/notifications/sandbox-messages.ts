/**
 * Reading what the sandbox provider recorded (docs/surface-c.md: "the sandbox provider records every message
 * so that a tester can read it"): `GET {sandbox_base}/sandbox/notifications`.
 */
import { type Page, paginate } from '../paging';
import type { Caller, Core } from '../context';
import type { NotificationChannel, NotificationLanguage, SandboxNotification } from '../../domain/notifications';
import { scoped } from '../tenancy';

/**
 * The caller's recorded messages (business and environment scoped, domain form), newest first, optionally of
 * one payout; list envelope with cursor paging (`limit` 1..200). 400 validation_error (`cursor`)
 * for a cursor we did not issue.
 */
export async function listSandboxNotifications(
  core: Core,
  caller: Caller,
  q: { payoutId?: string; limit: number; cursor?: string },
): Promise<Page<SandboxNotification>> {
  let query = scoped(core.db, caller)
    .selectFrom('sandbox_notification_messages')
    .selectAll();
  if (q.payoutId) query = query.where('payout_id', '=', q.payoutId);
  const page = await paginate(query, 'id', { limit: q.limit, cursor: q.cursor });
  return {
    data: page.rows.map((r) => ({
      id: r.id,
      notificationId: r.notification_id,
      payoutId: r.payout_id,
      channel: r.channel as NotificationChannel,
      destination: r.destination,
      language: r.language as NotificationLanguage,
      subject: r.subject,
      body: r.body,
      claimUrl: r.claim_url,
      createdAt: r.created_at instanceof Date ? r.created_at : new Date(String(r.created_at)),
    })),
    nextCursor: page.nextCursor,
  };
}
