/**
 * The bank's answers (docs/rails.md "Inbound files"): the inbox poll lists the bank's outbox over
 * SFTP and takes each new file exactly once (recorded by name and sha256; a file already processed
 * is never applied again, also when two workers poll at once). pain.002 statuses and camt.054
 * entries become rail events, matched to their payout attempt by OrgnlMsgId, EndToEndId and UETR;
 * a camt.054 credit to a live virtual IBAN becomes a deposit (credited once: the bank's entry
 * reference is its external id). A file that does not parse is quarantined and the poll goes on.
 * The ACH rail's files (NACHA returns, NOCs, credits) and its settlement by silence are read by
 * src/core/rails/ach-inbox.ts through the same poll.
 */
import { formatAmount } from '../../domain/money';
import { type Camt054Entry, parseCamt054 } from '../../rails/iso20022/camt054';
import { MAX_ISO20022_BYTES } from '../../rails/iso20022/xml';
import { parsePain002 } from '../../rails/iso20022/pain002';
import { sepaRailConfig } from '../../rails/sepa/config';
import { ACH_RAIL, achRailConfig } from '../../rails/ach/config';
import { SftpTransport } from '../../rails/sftp/transport';
import { signalPayoutRailEvent } from '../../temporal/rail-gateway';
import type { PayoutRailEvent } from '../../../workflows/payout.contract';
import type { Caller, Core } from '../context';
import { receiveDeposit } from '../funding/deposits';
import { processStatementFile, reconcileAfterPoll } from '../treasury/statements';
import { payoutsRailOverdue, railFiles, railReturns, railUnmatchedItems } from '../metrics/registry';
import { applyNotificationOfChange, processAchInboundFile, settleDueAchFiles } from './ach-inbox';
import { markRailEventDispatched, type NewRailEvent, railEventsOfAttempt, recordRailEvents, toPayoutRailEvent, undispatchedRailEvents } from './events';
import { finishedInboundNames, markInboundProcessed, markInboundQuarantined, type RailFileRow, recordInboundFile } from './files';
import { advanceInstruction, findInstruction, instructionsOfFile } from './instructions';

/** What one poll did; `more`: new files were left for the next poll (at most MAX_FILES_PER_POLL per poll). */
export interface InboxPollResult {
  files: number;
  events: number;
  quarantined: number;
  more: boolean;
}

/**
 * New files one poll takes at most: each costs a download and a transaction, so a backlog (the
 * bank's answers to a long outage) is read in polls that each end well inside the activity's
 * timeout; the poller polls again at once while `more` is set (found by `npm run chaos`: 300 files
 * in one poll outlasted its 2-minute timeout on a loaded machine, attempt after attempt).
 */
export const MAX_FILES_PER_POLL = 50;

/** pain.002 transaction statuses that mean "accepted, not yet booked". */
const ACCEPTED = new Set(['ACCP', 'ACSP', 'ACTC', 'ACWC', 'ACFC', 'PART', 'ACCC']);

/**
 * One poll of `rail`'s inbox (see the file header): takes every new file, then dispatches every
 * event not yet dispatched (signals and deposits left by a process that died after recording).
 * Throws SftpError when the bank cannot be reached (the poller's activity retries).
 */
export async function pollRailInbox(core: Core, rail: string): Promise<InboxPollResult> {
  const r = rail === ACH_RAIL ? achRailConfig(core.config) : sepaRailConfig(core.config);
  if (!r.config) throw new Error(`The ${rail} rail is not configured: ${r.missing.join(', ')} unset`);
  const connection = r.config;
  const sftp = new SftpTransport(connection.sftp);
  const result: InboxPollResult = { files: 0, events: 0, quarantined: 0, more: false };
  // Before the listing: whatever the bank published earlier is in it (settleDueAchFiles below).
  const listedAt = core.now();
  try {
    const listed = await sftp.list(connection.downloadDir);
    const finished = await finishedInboundNames(core.db, rail, listed.map((f) => f.name));
    for (const f of listed) {
      if (finished.has(f.name)) continue;
      if (result.files >= MAX_FILES_PER_POLL) {
        result.more = true;
        break;
      }
      const content = await sftp.download(connection.downloadDir, f.name, MAX_ISO20022_BYTES);
      const file = await recordInboundFile(core, rail, f.name, content);
      if (file.status !== 'received') {
        if (file.status === 'quarantined' && file.name !== f.name) result.quarantined++;
        continue;
      }
      const processed = await processInboundFile(core, file, f.modifiedAt);
      result.files++;
      result.events += processed.events;
      if (processed.quarantined) result.quarantined++;
    }
  } finally {
    await sftp.close().catch(() => undefined);
  }
  // ACH settles by silence: the entries of files past their settlement time that nothing returned.
  // Only once every file listed is read (a return waiting in the outbox must be seen first), and
  // only entries that settled by the time of the listing (a return may have come after it).
  if (rail === ACH_RAIL && !result.more) result.events += await settleDueAchFiles(core, rail, listedAt);
  await dispatchRailEvents(core, rail);
  // The settlement account again, now that the poll's answers are in our books (docs/treasury.md).
  if (result.files > 0) await reconcileAfterPoll(core, rail);
  return result;
}

/** The kind of an ISO 20022 document, from its namespace. */
function kindOf(xml: string): 'pain.002' | 'camt.054' | null {
  if (xml.includes('urn:iso:std:iso:20022:tech:xsd:pain.002.')) return 'pain.002';
  if (xml.includes('urn:iso:std:iso:20022:tech:xsd:camt.054.')) return 'camt.054';
  return null;
}

/**
 * Parses inbound file `file` and records its events, in one transaction that holds the file's row
 * (a second worker skips it). `bankTime`: when the bank put the file on its server (the listing's
 * modification time), which decides on ACH whether a return came before or after settlement. A file that does not parse is quarantined (metric
 * rail_files_total{outcome="quarantined"} and an error log). Returns what it recorded.
 */
export async function processInboundFile(core: Core, file: RailFileRow, bankTime: Date | null = null): Promise<{ events: number; quarantined: boolean }> {
  // End-of-day statements of the settlement accounts (docs/treasury.md): read and reconciled there.
  const statement = await processStatementFile(core, file);
  if (statement) return statement;
  if (file.rail === ACH_RAIL) {
    const ach = achRailConfig(core.config).config;
    if (!ach) throw new Error('The ACH rail is not configured');
    return processAchInboundFile(core, ach, file, bankTime);
  }
  const now = core.now();
  const xml = file.content ?? '';
  let parsed: { kind: string; messageId: string; events: NewRailEvent[] } | null = null;
  let error: string | null = null;
  try {
    const kind = kindOf(xml);
    if (!kind) throw new Error('not a pain.002 or camt.054 document');
    parsed = kind === 'pain.002' ? await pain002Events(core, file, xml) : await camt054Events(core, file, xml);
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  if (!parsed) {
    await markInboundQuarantined(core.db, file.id, error ?? 'unreadable', now);
    railFiles.inc({ rail: file.rail, direction: 'inbound', outcome: 'quarantined' });
    core.log.error({ rail: file.rail, fileId: file.id, name: file.name, error }, 'bank file quarantined: it does not parse');
    return { events: 0, quarantined: true };
  }
  const events = parsed.events;
  const recorded = await core.db.transaction().execute(async (tx) => {
    const locked = await tx.selectFrom('rail_files').select('status').where('id', '=', file.id).forUpdate().skipLocked().executeTakeFirst();
    if (!locked || locked.status !== 'received') return null;
    const ids = await recordRailEvents(tx, events, now);
    for (const e of events) {
      if (!e.payout_id || e.attempt === null) continue;
      const to = e.type === 'accepted' ? 'accepted' : e.type === 'rejected' ? 'rejected' : e.type === 'settled' ? 'settled' : e.type === 'returned' ? 'returned' : null;
      if (to) await advanceInstruction(tx, { payoutId: e.payout_id, attempt: e.attempt }, to, now);
    }
    await markInboundProcessed(tx, file.id, { kind: parsed.kind, messageId: parsed.messageId, transactions: events.length }, now);
    return ids;
  });
  if (!recorded) return { events: 0, quarantined: false };
  for (const e of events) if (e.type === 'returned' && recorded.includes(e.id)) railReturns.inc({ rail: file.rail, code: e.reason_code ?? 'none', late: 'false' });
  const unmatched = events.filter((e) => recorded.includes(e.id) && !e.payout_id && e.type !== 'credit').length;
  if (unmatched > 0) {
    railUnmatchedItems.inc({ rail: file.rail }, unmatched);
    core.log.warn({ rail: file.rail, fileId: file.id, unmatched }, 'bank statuses matched no payout; kept as unmatched items');
  }
  railFiles.inc({ rail: file.rail, direction: 'inbound', outcome: 'received' });
  return { events: recorded.length, quarantined: false };
}

/** The events of a pain.002 status report (transaction, payment-information and group levels). */
async function pain002Events(core: Core, file: RailFileRow, xml: string) {
  const report = parsePain002(xml);
  const events: NewRailEvent[] = [];
  const at = new Date(report.createdAt);
  const occurredAt = Number.isNaN(at.getTime()) ? null : at;
  const push = async (status: string, reasonCode: string | null, refs: { endToEndId: string | null; uetr: string | null }, details: Record<string, unknown>) => {
    const type = status === 'RJCT' ? 'rejected' : ACCEPTED.has(status) ? 'accepted' : null;
    if (!type) return;
    const instruction = await findInstruction(core.db, { ...refs, originalMessageId: report.originalMessageId });
    events.push({
      id: `${file.id}:${events.length}`,
      rail: file.rail,
      rail_file_id: file.id,
      type,
      payout_id: instruction?.payout_id ?? null,
      attempt: instruction?.attempt ?? null,
      deposit_id: null,
      end_to_end_id: refs.endToEndId,
      uetr: refs.uetr,
      reason_code: reasonCode,
      occurred_at: occurredAt,
      details: { source: 'pain.002', status, originalMessageId: report.originalMessageId, ...details },
    });
  };
  let transactions = 0;
  for (const p of report.payments) {
    for (const t of p.transactions) {
      transactions++;
      await push(t.status, t.reasonCode ?? p.reasonCode, { endToEndId: t.originalEndToEndId, uetr: t.uetr }, { originalPaymentInformationId: p.originalPaymentInformationId, additionalInfo: t.additionalInfo });
    }
  }
  // A rejection of a whole payment information block or file, without transaction details: every
  // transaction of the original file is rejected.
  const wholeStatus = report.payments.find((p) => p.transactions.length === 0 && p.status)?.status ?? (transactions === 0 ? report.groupStatus : null);
  if (wholeStatus === 'RJCT') {
    const original = await core.db.selectFrom('rail_files').select('id').where('message_id', '=', report.originalMessageId).where('direction', '=', 'outbound').executeTakeFirst();
    const reason = report.payments.find((p) => p.reasonCode)?.reasonCode ?? report.groupReasonCode;
    for (const i of original ? await instructionsOfFile(core.db, original.id) : []) {
      await push('RJCT', reason, { endToEndId: i.end_to_end_id, uetr: i.uetr }, { level: 'group' });
    }
    if (!original) await push('RJCT', reason, { endToEndId: null, uetr: null }, { level: 'group' });
  }
  return { kind: 'pain.002', messageId: report.messageId, events };
}

/** The events of a camt.054 notification: booked debits (settled), returns, incoming credits. */
async function camt054Events(core: Core, file: RailFileRow, xml: string) {
  const n = parseCamt054(xml);
  const events: NewRailEvent[] = [];
  for (const e of n.entries) {
    if (e.status !== 'BOOK' || e.reversal) continue;
    const instruction = e.endToEndId || e.uetr ? await findInstruction(core.db, { endToEndId: e.endToEndId, uetr: e.uetr, originalMessageId: null }) : undefined;
    let type: NewRailEvent['type'];
    if (e.creditDebit === 'DBIT') type = 'settled';
    else if (instruction || e.returnReasonCode) type = 'returned';
    else type = 'credit';
    const booked = e.bookingDate ? new Date(e.bookingDate) : null;
    events.push({
      id: `${file.id}:${events.length}`,
      rail: file.rail,
      rail_file_id: file.id,
      type,
      payout_id: instruction?.payout_id ?? null,
      attempt: instruction?.attempt ?? null,
      deposit_id: null,
      end_to_end_id: e.endToEndId,
      uetr: e.uetr,
      reason_code: e.returnReasonCode,
      occurred_at: booked && !Number.isNaN(booked.getTime()) ? booked : null,
      details: { source: 'camt.054', accountIban: n.accountIban, ...entryDetails(e) },
    });
  }
  return { kind: 'camt.054', messageId: n.messageId, events };
}

/** What an entry's event keeps (all strings; amounts in minor units). */
function entryDetails(e: Camt054Entry): Record<string, unknown> {
  return {
    creditDebit: e.creditDebit,
    amountMinor: e.amountMinor,
    currency: e.currency,
    accountServicerReference: e.accountServicerReference,
    entryReference: e.entryReference,
    creditorIban: e.creditorIban,
    debtorName: e.debtorName,
    debtorIban: e.debtorIban,
    remittanceInformation: e.remittanceInformation,
  };
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
async function dispatchOne(core: Core, rail: string, e: Awaited<ReturnType<typeof undispatchedRailEvents>>[number]): Promise<void> {
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
    await applyNotificationOfChange(core, e);
    await markRailEventDispatched(core.db, e.id, now);
    return;
  }
  if (e.type === 'credit') {
    const depositId = await creditLiveDeposit(core, e.id, e.details as Record<string, string | null>, e.occurred_at ?? now);
    if (!depositId) railUnmatchedItems.inc({ rail });
    await markRailEventDispatched(core.db, e.id, now, depositId ?? undefined);
    return;
  }
  await markRailEventDispatched(core.db, e.id, now);
}

/**
 * A credit to a live virtual account received as a deposit: a camt.054 credit to a live EUR
 * virtual IBAN (the bank's entry reference is its external id), or an ACH credit entry to a live
 * USD virtual account number (`ach:<trace number>`). Null when no active account has that
 * identifier (the credit stays an unmatched item).
 */
async function creditLiveDeposit(core: Core, eventId: string, d: Record<string, string | null>, receivedAt: Date): Promise<string | null> {
  const currency = d.currency;
  if ((currency !== 'EUR' && currency !== 'USD') || !d.amountMinor) return null;
  const identifier = currency === 'USD' ? d.accountNumber?.trim() : (d.creditorIban ?? d.accountIban)?.replace(/\s+/g, '').toUpperCase();
  if (!identifier) return null;
  const va = await core.db
    .selectFrom('virtual_accounts')
    .select(['id', 'business_id', 'status'])
    .where('environment', '=', 'live')
    .where('currency', '=', currency)
    .where('account_identifier', '=', identifier)
    .executeTakeFirst();
  if (!va || va.status !== 'active') return null;
  const caller: Caller = { businessId: va.business_id, environment: 'live', keyId: 'rail', role: 'owner', policy: null };
  const { deposit } = await receiveDeposit(core, caller, {
    source: 'virtual_account',
    virtualAccountId: va.id,
    amount: formatAmount(BigInt(d.amountMinor), currency),
    currency,
    reference: d.remittanceInformation ?? null,
    senderName: (currency === 'USD' ? d.originatorName : d.debtorName) ?? null,
    externalId: currency === 'USD' ? `ach:${d.traceNumber ?? eventId}` : (d.accountServicerReference ?? d.entryReference ?? eventId),
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
