/**
 * The rails' answers (docs/rails.md "Inbound files", "The seam"): one poll of a live connection is
 * its module's `poll` (a file rail lists the bank's outbox over SFTP and takes each new file once;
 * ACH then settles by silence; a partner rail asks for the transfers its webhooks left waiting),
 * which records rail events; then every event not yet dispatched is dispatched: signaled to its
 * payout's workflow, credited as a deposit (the module says to which account), or applied (a
 * notification of change). Names no rail.
 */
import { formatAmount } from '../../domain/money';
import type { InboxPollResult, RailFileRecord } from '../../rails/adapter';
import { signalPayoutRailEvent } from '../../temporal/rail-gateway';
import type { PayoutRailEvent } from '../../../workflows/payout.contract';
import type { Caller, Core } from '../context';
import { receiveDeposit } from '../funding/deposits';
import { processStatementFile, reconcileAfterPoll } from '../treasury/statements';
import { payoutsRailOverdue, railUnmatchedItems } from '../metrics/registry';
import { markRailEventDispatched, type RailEventRow, railEventsOfAttempt, toPayoutRailEvent, undispatchedRailEvents } from './rail-events';
import { railHost } from './host';
import { liveRailConnection } from './rail-adapters';

export type { InboxPollResult } from '../../rails/adapter';
export { MAX_FILES_PER_POLL } from '../../rails/sftp/inbox';

/** The configured connection `rail`, or an Error. */
function connection(core: Core, rail: string) {
  const c = liveRailConnection(core, rail);
  if (!c) throw new Error(`The ${rail} rail is not configured`);
  return c;
}

/**
 * One poll of `rail`'s answers (see the file header): the module's poll, then every event not yet
 * dispatched (signals and deposits left by a process that died after recording). Throws when the
 * rail cannot be reached (SftpError, a partner's transport error: the poller's activity retries).
 */
export async function pollRailInbox(core: Core, rail: string): Promise<InboxPollResult> {
  const c = connection(core, rail);
  const result = await c.configured.poll(railHost(core, c.id));
  await dispatchRailEvents(core, c.id);
  // The settlement account again, now that the poll's answers are in our books (docs/treasury.md).
  if (result.files > 0) await reconcileAfterPoll(core, c.id);
  return result;
}

/**
 * Reads inbound file `file` (recorded `received`) with its rail's module and records its events,
 * in one transaction that holds the file's row (a second worker skips it). `bankTime`: when the
 * bank put the file on its server (ACH decides by it whether a return came before or after
 * settlement). A file that does not parse is quarantined. Returns what it recorded.
 */
export async function processInboundFile(core: Core, file: RailFileRecord, bankTime: Date | null = null): Promise<{ events: number; quarantined: boolean }> {
  // End-of-day statements of the settlement accounts (docs/treasury.md): read and reconciled there.
  const statement = await processStatementFile(core, file);
  if (statement) return statement;
  const c = connection(core, file.rail);
  if (!c.configured.readInboundFile) throw new Error(`The ${file.rail} rail has no inbound files`);
  return c.configured.readInboundFile(railHost(core, c.id), file, bankTime);
}

/**
 * Dispatches the rail's recorded events not dispatched yet: a payout's event is signaled to its
 * workflow; a credit becomes a deposit on the live virtual account its IBAN names (receiveDeposit:
 * idempotent on the bank's entry reference, so it is credited once) or stays unmatched. An event
 * whose dispatch fails (Temporal unreachable, a call past its deadline) is logged and left for the
 * next poll; the others go on. Returns how many were dispatched and how many were left.
 */
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

/** Dispatches one recorded event (see {@link dispatchRailEvents}); throws when it could not. */
async function dispatchOne(core: Core, rail: string, e: RailEventRow): Promise<void> {
  const now = core.now();
  const signal = toPayoutRailEvent(e);
  if (signal && e.payout_id) {
    const delivered = await signalPayoutRailEvent(core.temporal, e.payout_id, signal);
    if (!delivered && e.type === 'returned') {
      // The payout's workflow had closed: its return window (RAIL_*_RETURN_WINDOW) was over. The
      // bank returned the funds to the settlement account, but the payout stays `succeeded`: an
      // operator refunds or re-credits it by hand (docs/rails.md "ACH", "Bank status unmatched").
      railUnmatchedItems.inc({ rail });
      core.log.error({ rail, payoutId: e.payout_id, railEventId: e.id, reasonCode: e.reason_code }, 'a return arrived after its payout closed (past the return window): not applied; refund by hand');
    }
    await markRailEventDispatched(core.db, e.id, now);
    return;
  }
  if (e.type === 'notification_of_change') {
    const c = liveRailConnection(core, rail);
    if (c?.configured.applyNotice) await c.configured.applyNotice(railHost(core, c.id), e);
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

/**
 * A credit to a live virtual account received as a deposit: the rail's module reads the account
 * identifier, the rail's id of the credit (its external id: credited once), the sender and the
 * reference from the event (a camt.054 credit to a live EUR virtual IBAN, an ACH credit entry to a
 * live USD virtual account number). Null when no active account has that identifier (the credit
 * stays an unmatched item).
 */
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

/**
 * The rail's recorded answers about one payout attempt (payoutRailStatus, past the deadline). With
 * none, raises the operator alert: metric payouts_rail_overdue_total and an error log naming the
 * payout, how long it has waited, and its file. Returns the events, oldest first.
 */
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
