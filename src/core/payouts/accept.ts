/**
 * Accepting a payout (spec POST /payouts): the row, its hold, the payout.submitted event and the
 * workflow start in one transaction, then the start after commit (docs/architecture.md "Outboxes").
 */
import { type Insertable, type RawBuilder, sql } from 'kysely';
import type { PayoutsTable } from '../../db/tables/payouts';
import type { DbOrTx } from '../../db/schema';
import { parseDuration } from '../../domain/durations';
import { newId, randomToken } from '../../domain/ids';
import { PAYOUT_CHECKS_LEVEL, PAYOUT_PATCH_LEVEL, type PayoutWorkflowInput } from '../../../workflows/payout.contract';
import { PAYOUT_WORKFLOW_TYPE } from '../../../workflows/payout.contract';
import type { Caller, Core } from '../context';
import { explainUnappliedPosting, gatedPostingCtes, getBalance, InsufficientFundsError, insufficientBalance, type Posting } from '../ledger';
import { flushWorkflowStart, handOffWorkflowStart, type PendingStart, workflowStartInsertSelect, workflowStartValues } from '../workflow-starts';
import type { PayoutRow } from './rows';
import { type PayoutRequest, type PreparedPayout, preparePayout } from './prepare';
import type { Payout } from '../../domain/payouts';
import { payoutFromRow } from './read';
import { findOrRetirePayoutIdempotencyKey, payoutEventInput, payoutInsertSelect } from './transitions';
import { eventInsertSelect, eventValues, eventWritten } from '../events';
import { applyPayoutPolicy, recordApprovalRequired } from '../policies/payouts';
import { retentionCutoff } from '../idempotency-retention';
import { keyPolicy } from '../policies/policy';
import { isUniqueViolation } from '../../db/errors';
import { liveRateColumns } from '../quotes';
import { scoped } from '../tenancy';

/** Options of {@link insertPayout}. */
export interface InsertPayoutOptions {
  /** Payout id (default a new `po_…`). */
  id?: string;
  /** The request's Idempotency-Key (unique per business and environment: never two payouts for one key). */
  idempotencyKey?: string;
  /** 'balance': hold debit_total now; 'batch': a disbursement already holds the funds (no hold here). */
  funding: 'balance' | 'batch';
  /** 'submitted' (default; attempts 1, event payout.submitted) or 'pending' (attempts 0, no event, no workflow yet). */
  status?: 'submitted' | 'pending';
  disbursementId?: string;
  disbursementItemId?: string;
  /** Record the payoutWorkflow start in this transaction (flush it after commit with flushWorkflowStart). */
  startWorkflow: boolean;
  /** The payout waits for approval up to `timeoutMs` (status pending, funds held, a payout_approvals row). */
  approval?: { timeoutMs: number; expiresAt: Date };
}

/**
 * Accepts a prepared payout in one SQL statement (docs/architecture.md "Money rules", rules 2, 3, 5):
 * the row, the hold `payout:{id}:hold` when funding is 'balance', payout.submitted and the workflow
 * start, all or none. Throws ApiError 402 insufficient_balance (nothing written), and Error for a
 * pending payout with startWorkflow.
 */
export async function insertPayout(
  tx: DbOrTx,
  core: Core,
  caller: Caller,
  prepared: PreparedPayout,
  opts: InsertPayoutOptions,
): Promise<{ id: string; row: PayoutRow; start?: PendingStart }> {
  const id = opts.id ?? newId('po');
  const status = opts.approval ? 'pending' : (opts.status ?? 'submitted');
  if (status === 'pending' && opts.startWorkflow && !opts.approval) {
    throw new Error('insertPayout: a pending payout starts its workflow when it becomes submitted');
  }
  const now = core.now();
  const pr = prepared.price;

  const values = payoutValues(caller, prepared, { id, status, now, idempotencyKey: opts.idempotencyKey, disbursementId: opts.disbursementId, disbursementItemId: opts.disbursementItemId });
  // The row as it will read back, for the event snapshot and the workflow start.
  const expected = { ...values, recipient_details: prepared.recipientDetails, claim_started_at: null, cancel_requested_at: null, claim_batch_id: null } as PayoutRow;
  const event = status === 'submitted' ? payoutEventInput(core, expected, 'submitted') : null;
  const start = opts.startWorkflow ? payoutStart(expected, opts.approval ? { approval: { timeoutMs: opts.approval.timeoutMs } } : {}) : undefined;
  const hold: Posting | null =
    opts.funding === 'balance'
      ? { businessId: caller.businessId, environment: caller.environment, key: `payout:${id}:hold`, from: 'available', to: 'held', amount: pr.debitTotal, refusedWhenPayoutsBlocked: true }
      : null;

  const gate = hold ? sql` from balance` : sql``;
  const ctes: RawBuilder<unknown>[] = [];
  if (hold) ctes.push(gatedPostingCtes(hold));
  ctes.push(sql`payout as (${payoutInsertSelect(values, gate)})`);
  if (event) ctes.push(sql`event as (${eventInsertSelect(eventValues(event), gate)})`);
  if (start) ctes.push(sql`start as (${workflowStartInsertSelect(workflowStartValues(start), gate)})`);
  const statement = sql<PayoutRow & { event_written: number }>`with ${sql.join(ctes, sql`, `)}
    select payout.*, ${event ? sql`(select count(*) from event)::int` : sql`0`} as event_written from payout`;

  const written = (await statement.execute(tx)).rows[0];
  if (!written && hold) {
    try {
      await explainUnappliedPosting(tx, hold);
    } catch (e) {
      if (e instanceof InsufficientFundsError) {
        const balance = await getBalance(tx, caller.businessId, caller.environment);
        throw insufficientBalance(pr.debitTotal, balance.available);
      }
      throw e;
    }
  }
  if (!written) throw new Error(`payout ${id} was not written`);
  const { event_written: eventWrittenCount, ...row } = written;
  if (event && eventWrittenCount > 0) eventWritten(event);
  if (opts.approval) await recordApprovalRequired(tx, caller, id, opts.approval.expiresAt);
  return { id, row: row as PayoutRow, start };
}

/** The `payouts` row of an accepted payout (the one definition of its columns, also for batches). */
export function payoutValues(
  caller: Caller,
  prepared: PreparedPayout,
  o: { id: string; status: 'submitted' | 'pending'; now: Date; idempotencyKey?: string; disbursementId?: string; disbursementItemId?: string },
): Insertable<PayoutsTable> {
  const pr = prepared.price;
  return {
    id: o.id,
    business_id: caller.businessId,
    environment: caller.environment,
    status: o.status,
    channel: prepared.channel.id,
    rail: prepared.channel.rail,
    recipient_id: prepared.recipientId,
    recipient_type: prepared.recipientType,
    recipient_details: JSON.stringify(prepared.recipientDetails) as any,
    source_amount: pr.sourceAmount,
    source_currency: pr.sourceCurrency,
    destination_amount: pr.destinationAmount,
    destination_currency: pr.destinationCurrency,
    rate: pr.rate,
    fee_provider: pr.fees.provider,
    fee_service: pr.fees.service,
    fee_fx_spread: pr.fees.fxSpread,
    fee_total: pr.fees.total,
    debit_total: pr.debitTotal,
    ...liveRateColumns(pr),
    reference: prepared.reference,
    memo: prepared.memo,
    message: prepared.message,
    quote_id: prepared.quoteId,
    idempotency_key: o.idempotencyKey ?? null,
    estimated_arrival: prepared.latestArrival ?? new Date(o.now.getTime() + parseDuration(prepared.channel.arrival.max)),
    delivered_at: null,
    provider_reference: null,
    failure_code: null,
    failure_message: null,
    attempt_count: o.status === 'submitted' ? 1 : 0,
    claim_token: null,
    claimed_at: null,
    claim_method: null,
    claim_expires_at: null,
    receipt_token: randomToken(18),
    confirmed_received_at: null,
    disbursement_id: o.disbursementId ?? null,
    disbursement_item_id: o.disbursementItemId ?? null,
    created_by_key_id: caller.keyId,
    created_at: o.now,
    updated_at: o.now,
  };
}

/** The payoutWorkflow start of a payout (docs/architecture.md "Workflow ids and task queues"). */
export function payoutStart(
  row: Pick<PayoutRow, 'id' | 'business_id' | 'environment' | 'status' | 'channel' | 'disbursement_id'>,
  extra: Pick<PayoutWorkflowInput, 'approval'> = {},
): PendingStart {
  const input: PayoutWorkflowInput = { payoutId: row.id, channel: row.channel, ...extra, patchLevel: PAYOUT_PATCH_LEVEL, checks: PAYOUT_CHECKS_LEVEL };
  return {
    workflowType: PAYOUT_WORKFLOW_TYPE,
    workflowId: row.id,
    args: [input],
    searchAttributes: {
      BusinessId: row.business_id,
      Environment: row.environment,
      PayoutStatus: row.status,
      Channel: row.channel,
      ...(row.disbursement_id ? { DisbursementId: row.disbursement_id } : {}),
    },
  };
}

/** The payout created with `key` within the idempotency retention (30 days), if any. */
async function findByIdempotencyKey(core: Core, caller: Caller, key: string): Promise<PayoutRow | undefined> {
  return scoped(core.db, caller)
    .selectFrom('payouts')
    .selectAll()
    .where('idempotency_key', '=', key)
    .where('created_at', '>=', retentionCutoff(core.now()))
    .executeTakeFirst();
}

/** {@link findByIdempotencyKey}, retiring in the same statement the key on a payout past the retention. */
async function findOrRetireIdempotencyKey(core: Core, caller: Caller, key: string): Promise<PayoutRow | undefined> {
  return findOrRetirePayoutIdempotencyKey(core.db, caller, key, retentionCutoff(core.now()));
}

/** Makes the recorded start of a payout found by its idempotency key, if it was never made. */
async function flushSoon(core: Core, payoutId: string): Promise<void> {
  try {
    await flushWorkflowStart(core, payoutId);
  } catch (err) {
    core.log.warn({ err, payoutId }, 'payout workflow start deferred to the relay');
  }
}

/**
 * POST /payouts (spec "Endpoints", Surface A): returns the Payout as created (submitted, or pending
 * above the key's approval_threshold), or the payout already holding this key within the 30-day
 * retention (looked up only when the accept fails: docs/benchmarks.md "2026-11-26").
 * Errors: those of {@link preparePayout}, 402 insufficient_balance, 403 policy_exceeded.
 */
export async function createPayout(
  core: Core,
  caller: Caller,
  req: PayoutRequest,
  opts: { idempotencyKey?: string } = {},
): Promise<Payout> {
  const key = opts.idempotencyKey;
  const render = (row: PayoutRow) => payoutFromRow(row, core.config.publicUrl);
  const existingAnswer = async (row: PayoutRow) => {
    await flushSoon(core, row.id);
    return render(row);
  };
  try {
    return render(await acceptNewPayout(core, caller, req, key));
  } catch (err) {
    if (!key) throw err;
    // A payout already made for this key answers; if the lookup fails too, the accept's error does.
    const existing = await findOrRetireIdempotencyKey(core, caller, key).catch(() => {
      throw err;
    });
    if (existing) return existingAnswer(existing);
    if (!isUniqueViolation(err)) throw err;
  }
  // The key was held by a payout past the retention, now retired: accept once more.
  try {
    return render(await acceptNewPayout(core, caller, req, key));
  } catch (err) {
    if (isUniqueViolation(err)) {
      const winner = await findByIdempotencyKey(core, caller, key);
      if (winner) return existingAnswer(winner);
    }
    throw err;
  }
}

/** Prepares and accepts a new payout under `key`; throws as preparePayout/insertPayout, or the `payouts_idempotency` unique violation. */
async function acceptNewPayout(core: Core, caller: Caller, req: PayoutRequest, key: string | undefined): Promise<PayoutRow> {
  const prepared = await preparePayout(core, caller, req);
  const amountParam = req.sourceAmount !== undefined && req.sourceAmount !== null ? 'source_amount' : req.destinationAmount !== undefined && req.destinationAmount !== null ? 'destination_amount' : 'quote_id';
  const accept = async (tx: DbOrTx) => {
    // Key policy (src/core/policies): may refuse (403 policy_exceeded) or make the payout wait for approval.
    const gate = await applyPayoutPolicy(tx, core, caller, prepared.channel.id, prepared.price.sourceAmount, { channel: 'channel', amount: amountParam });
    return insertPayout(tx, core, caller, prepared, { idempotencyKey: key, funding: 'balance', startWorkflow: true, approval: gate.approval ?? undefined });
  };
  // A key policy's budget counter and approval row join the accept in a transaction.
  const accepted = keyPolicy(caller) ? await core.db.transaction().execute(accept) : await accept(core.db);
  // The start is in the outbox; answer now (docs/benchmarks.md "2026-11-26 (evening)").
  if (accepted.start) handOffWorkflowStart(core, accepted.start);
  return accepted.row;
}
