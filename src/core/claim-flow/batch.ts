/**
 * Surface B `POST /disbursements/batch` (spec: at most 10,000 entries; "Batch create"): every entry
 * is a core claim-link payout, validated and priced by the same functions as the single create
 * (validateClaimEntry, then the core's preparePayout), and accepted in ONE transaction with batched
 * statements so 10,000 entries take a few seconds:
 * - a `claim_batches` row (idempotency key unique per business and environment);
 * - ONE hold of the batch total, `claim_batch:{id}:hold` (available -> held; 402 if it does not
 *   fit), as Surface A's disbursement launch does; each payout later settles or releases its own
 *   debit_total from `held` exactly like a single payout (`payout:{id}:settle|release`);
 * - the payout rows, their `payout.submitted` events and workflow starts, from the owners' builders,
 *   one statement per table (rows as one jsonb parameter).
 * After commit the API process starts the workflows in the background; whatever it does not get to
 * (it died right after the 201) the worker's relay starts (sweepWorkflowStarts), so every entry's
 * workflow starts durably.
 *
 * Validation is all-or-nothing: every bad entry is reported in `details.errors` by index, and a
 * batch with a bad entry creates nothing.
 */
import { ApiError, validationError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { ClaimBatch } from '../../domain/claim-disbursements';
import { USDC } from '../../domain/money';
import type { Caller, Core } from '../context';
import { getBalance, InsufficientFundsError, insufficientBalance, post } from '../ledger';
import { payoutStart, payoutValues, type PayoutRow, type PreparedPayout, preparePayout } from '../payouts';
import { handOffWorkflowStarts, insertWorkflowStarts, startLeaseUntil } from '../workflow-starts';
import { eventRow, insertEventRowsJson } from '../events';
import { insertPayoutRowsJson, payoutEventInput } from '../payouts/transitions';
import { renameCoreParam, validateClaimEntry } from './entry';
import { applyBatchPolicy } from '../policies/batches';
import { isUniqueViolation } from '../../db/errors';
import { claimDisbursementView } from './view';
import { scoped } from '../tenancy';

export type { ClaimBatch } from '../../domain/claim-disbursements';

/** Spec "Limits": entries per batch request (Surface B). */
export const MAX_BATCH_ENTRIES = 10_000;
const MAX_BATCH_REFERENCE = 140;
const MAX_NOTE = 500;

/** Batch create input (Surface B wire names). */
export interface ClaimBatchInput {
  disbursements: unknown;
  batchReference?: unknown;
  note?: unknown;
}

/** One refused entry: its index, the offending field (wire name, prefixed `disbursements.<i>.`), code and message. */
export interface BatchEntryError {
  index: number;
  param: string | null;
  error: string;
  message: string;
}


const text = (v: unknown, param: string, max: number): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw validationError(param, `${param} must be a string`);
  if (v.length > max) throw validationError(param, `${param} must be at most ${max} characters`);
  return v;
};

/**
 * Validates, prices and accepts a batch (see the module docstring). With `idempotencyKey` already
 * used for a batch, returns that batch. Throws ApiError: 400 `validation_error` (param
 * `disbursements`) for a missing, empty or over-10,000 list, or, when entries are bad,
 * `validation_error` with `details.errors` (status 400 if any entry error is a 400, else 422);
 * 402 `insufficient_balance` for the batch total; 400 for batchReference / note.
 */
export async function createClaimBatch(
  core: Core,
  caller: Caller,
  input: ClaimBatchInput,
  opts: { idempotencyKey?: string; startInBackground?: boolean } = {},
): Promise<ClaimBatch> {
  const key = opts.idempotencyKey ?? null;
  if (key) {
    const existing = await findBatch(core, caller, key);
    if (existing) return existing;
  }
  const list = input.disbursements;
  if (!Array.isArray(list) || list.length === 0) throw validationError('disbursements', 'disbursements must be a non-empty array');
  if (list.length > MAX_BATCH_ENTRIES) {
    throw validationError('disbursements', `disbursements takes at most ${MAX_BATCH_ENTRIES} entries (got ${list.length})`);
  }
  const batchReference = text(input.batchReference, 'batchReference', MAX_BATCH_REFERENCE);
  const note = text(input.note, 'note', MAX_NOTE);

  const errors: BatchEntryError[] = [];
  const prepared: PreparedPayout[] = [];
  let total = 0n;
  let debit = 0n;
  for (let i = 0; i < list.length; i++) {
    const prefix = `disbursements.${i}.`;
    try {
      const entry = validateClaimEntry(list[i] as Record<string, unknown>, prefix);
      const req = { ...entry.request, ...(entry.request.message === undefined && note ? { message: note } : {}) };
      let p: PreparedPayout;
      try {
        p = await preparePayout(core, caller, req, { paramPrefix: prefix });
      } catch (err) {
        renameCoreParam(err, prefix);
      }
      prepared.push(p);
      total += p.price.sourceAmount;
      debit += p.price.debitTotal;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      errors.push({ index: i, param: err.param, error: err.code, message: err.message });
    }
  }
  if (errors.length) {
    const status = errors.some((e) => e.error === 'validation_error' || e.error === 'invalid_phone') ? 400 : 422;
    throw new ApiError(status, 'validation_error', `${errors.length} of ${list.length} disbursements are invalid; nothing was created`, 'disbursements', {
      errors,
    });
  }

  const id = newId('cbt');
  const now = core.now();
  let rows: PayoutRow[];
  try {
    rows = await core.db.transaction().execute(async (tx) => {
      await tx
        .insertInto('claim_batches')
        .values({
          id,
          business_id: caller.businessId,
          environment: caller.environment,
          batch_reference: batchReference,
          note,
          entry_count: prepared.length,
          total_amount: total,
          idempotency_key: key,
          created_at: now,
        })
        .execute();
      // Key policy (src/core/policies/batches.ts): 403 policy_exceeded, nothing held or counted.
      await applyBatchPolicy(
        tx,
        core,
        caller,
        prepared.map((p, i) => ({
          channel: p.channel.id,
          sourceAmount: p.price.sourceAmount,
          params: { channel: `disbursements.${i}`, amount: `disbursements.${i}.amountUsd` },
        })),
        'disbursements',
      );
      try {
        await post(tx, { businessId: caller.businessId, environment: caller.environment, key: `claim_batch:${id}:hold`, from: 'available', to: 'held', amount: debit, refusedWhenPayoutsBlocked: true });
      } catch (e) {
        if (e instanceof InsufficientFundsError) {
          const balance = await getBalance(tx, caller.businessId, caller.environment);
          throw insufficientBalance(debit, balance.available, 'disbursements');
        }
        throw e;
      }
      // Three statements for any number of entries: each table's rows travel as ONE jsonb
      // parameter, expanded by jsonb_populate_recordset (a multi-row VALUES list needs a bind
      // parameter per cell and is several times slower to build and parse at 10,000 rows).
      const out: PayoutRow[] = prepared.map((p) => {
        const v = payoutValues(caller, p, { id: newId('po', now.getTime()), status: 'submitted', now });
        return {
          ...(v as Omit<PayoutRow, 'recipient_details' | 'claim_batch_id' | 'claim_started_at' | 'cancel_requested_at' | 'created_at'>),
          recipient_details: JSON.parse(v.recipient_details as unknown as string) as Record<string, unknown>,
          claim_batch_id: id,
          claim_started_at: null,
          cancel_requested_at: null,
          created_at: now,
        };
      });
      const json = (rows: unknown[]) => JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
      await insertPayoutRowsJson(tx, json(out));
      const events = out.map((r) => eventRow(payoutEventInput(core, r, 'submitted')!, now));
      await insertEventRowsJson(tx, json(events));
      // Recorded claimed by this process (src/core/workflow-starts.ts handOffWorkflowStarts).
      const claimedUntil = startLeaseUntil(new Date());
      await insertWorkflowStarts(
        tx,
        out.map((r) => payoutStart(r)),
        now,
        claimedUntil,
      );
      return out;
    });
  } catch (err) {
    if (key && isUniqueViolation(err)) {
      const winner = await findBatch(core, caller, key);
      if (winner) return winner;
    }
    throw err;
  }
  if (opts.startInBackground !== false) handOffWorkflowStarts(core, rows.map((r) => payoutStart(r)));
  return {
    id,
    batchReference,
    note,
    count: rows.length,
    totalAmount: { minor: total, currency: USDC },
    totalDebit: { minor: debit, currency: USDC },
    createdAt: now,
    disbursements: rows.map((r) => claimDisbursementView(r, core.config.publicUrl)),
  };
}

async function findBatch(core: Core, caller: Caller, key: string): Promise<ClaimBatch | undefined> {
  const b = await scoped(core.db, caller)
    .selectFrom('claim_batches')
    .selectAll()
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
  if (!b) return undefined;
  const rows = await core.db.selectFrom('payouts').selectAll().where('claim_batch_id', '=', b.id).orderBy('id').execute();
  const debit = rows.reduce((s, r) => s + r.debit_total, 0n);
  return {
    id: b.id,
    batchReference: b.batch_reference,
    note: b.note,
    count: b.entry_count,
    totalAmount: { minor: b.total_amount, currency: USDC },
    totalDebit: { minor: debit, currency: USDC },
    createdAt: b.created_at,
    disbursements: rows.map((r) => claimDisbursementView(r, core.config.publicUrl)),
  };
}
