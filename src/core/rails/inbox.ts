/** The rails' answers (docs/rails.md "Inbound files", "The seam"): poll, record rail events, dispatch them. Names no rail. */
import { formatAmount } from '../../domain/money';
import type { InboxPollResult } from '../../rails/adapter';
import { signalPayoutRailEvent } from '../../temporal/rail-gateway';
import type { PayoutRailEvent } from '../../../workflows/payout.contract';
import type { Caller, Core } from '../context';
import { receiveDeposit } from '../funding/deposits';
import { reconcileAfterPoll } from '../treasury/statements';
import { payoutsRailOverdue, railUnmatchedItems } from '../metrics/registry';
import { markRailEventDispatched, type RailEventRow, railEventsOfAttempt, toPayoutRailEvent, undispatchedRailEvents } from './rail-events';
import { railHost } from './host';
import { railEventRecord } from './records';
import { liveRailConnection } from './rail-adapters';

export type { InboxPollResult } from '../../rails/adapter';

function connection(core: Core, rail: string) {
  const c = liveRailConnection(core, rail);
  if (!c) throw new Error(`The ${rail} rail is not configured`);
  return c;
}

/** Throws when the rail cannot be reached (the poller's activity retries). */
export async function pollRailInbox(core: Core, rail: string): Promise<InboxPollResult> {
  const c = connection(core, rail);
  const result = await c.configured.poll(railHost(core, c.id));
  await dispatchRailEvents(core, c.id);
  if (result.files > 0) await reconcileAfterPoll(core, c.id);
  return result;
}

/** Signals payouts, credits deposits (once per bank reference); a failed dispatch is logged and left for the next poll. */
export async function dispatchRailEvents(core: Core, rail: string): Promise<{ dispatched: number; left: number }> {
  const failed = new Set<string>();
  let dispatched = 0;
  for (;;) {
    const batch = (await undispatchedRailEvents(core.db, rail, 200 + failed.size)).filter((e) => !failed.has(e.id));
    if (batch.length === 0) return { dispatched, left: failed.size };
    for (const e of batch) {
      try {
        await dispatchOne(core, rail, e);
        dispatched++;
      } catch (err) {
        failed.add(e.id);
        core.log.warn({ err, rail, railEventId: e.id, payoutId: e.payout_id }, 'rail event not dispatched; the next poll tries again');
      }
    }
  }
}

async function dispatchOne(core: Core, rail: string, e: RailEventRow): Promise<void> {
  const now = core.now();
  const signal = toPayoutRailEvent(e);
  if (signal && e.payout_id) {
    const delivered = await signalPayoutRailEvent(core.temporal, e.payout_id, signal);
    if (!delivered && e.type === 'returned') {
      // Workflow closed (return window over): the payout stays `succeeded`; an operator refunds it (docs/rails.md "ACH").
      railUnmatchedItems.inc({ rail });
      core.log.error({ rail, payoutId: e.payout_id, railEventId: e.id, reasonCode: e.reason_code }, 'a return arrived after its payout closed (past the return window): not applied; refund by hand');
    }
    await markRailEventDispatched(core.db, e.id, now);
    return;
  }
  if (e.type === 'notification_of_change') {
    const c = liveRailConnection(core, rail);
    if (c?.configured.applyNotice) await c.configured.applyNotice(railHost(core, c.id), railEventRecord(e));
    await markRailEventDispatched(core.db, e.id, now);
    return;
  }
  if (e.type === 'credit') {
    const depositId = await creditLiveDeposit(core, rail, e.id, e.details as Record<string, unknown>, e.occurred_at ?? now);
    if (!depositId) railUnmatchedItems.inc({ rail });
    await markRailEventDispatched(core.db, e.id, now, depositId ?? undefined);
    return;
  }
  await markRailEventDispatched(core.db, e.id, now);
}

/** Null when no active account has the identifier (the credit stays an unmatched item). */
async function creditLiveDeposit(core: Core, rail: string, eventId: string, d: Record<string, unknown>, receivedAt: Date): Promise<string | null> {
  const credit = liveRailConnection(core, rail)?.configured.creditOf?.(d, eventId);
  if (!credit) return null;
  const va = await core.db
    .selectFrom('virtual_accounts')
    .select(['id', 'business_id', 'status'])
    .where('environment', '=', 'live')
    .where('currency', '=', credit.currency)
    .where('account_identifier', '=', credit.accountIdentifier)
    .executeTakeFirst();
  if (!va || va.status !== 'active') return null;
  const caller: Caller = { businessId: va.business_id, environment: 'live', keyId: 'rail', role: 'owner', policy: null };
  const { deposit } = await receiveDeposit(core, caller, {
    source: 'virtual_account',
    virtualAccountId: va.id,
    amount: formatAmount(BigInt(credit.amountMinor), credit.currency),
    currency: credit.currency,
    reference: credit.reference,
    senderName: credit.senderName,
    externalId: credit.externalId,
    receivedAt,
  });
  return deposit.id;
}

/** Past the deadline; with none, raises the operator alert (payouts_rail_overdue_total). Oldest first. */
export async function payoutRailStatus(core: Core, payoutId: string, attempt: number, overdueMs: number): Promise<PayoutRailEvent[]> {
  const rows = await railEventsOfAttempt(core.db, payoutId, attempt);
  const events = rows.map(toPayoutRailEvent).filter((e): e is PayoutRailEvent => e !== null);
  if (events.length === 0) {
    const i = await core.db.selectFrom('rail_instructions').select(['rail', 'rail_file_id', 'status']).where('payout_id', '=', payoutId).where('attempt', '=', attempt).executeTakeFirst();
    payoutsRailOverdue.inc({ rail: i?.rail ?? 'unknown' });
    core.log.error({ payoutId, attempt, overdueMs, rail: i?.rail, railFileId: i?.rail_file_id, instructionStatus: i?.status }, 'live payout overdue: its bank has not answered by the channel arrival.max; still waiting');
  }
  return events;
}
