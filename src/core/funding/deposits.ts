/** Deposits from any source (docs/getting-paid.md "Deposits"), converted to USDC rounded down (docs/rates.md "Deposits"). */
import type { Selectable } from 'kysely';
import { type Page, paginate } from '../paging';
import type { DbOrTx } from '../../db/schema';
import type { DepositsTable } from '../../db/tables/funding';
import { ApiError, validationError } from '../../domain/errors';
import {
  convertDeposit,
  DEPOSIT_CURRENCIES,
  DEPOSIT_EVENT_ON_ENTER,
  DEPOSIT_SOURCES,
  type DepositMatchResult,
  type DepositSource,
  type DepositStatus,
} from '../../domain/funding';
import type { Deposit } from '../../domain/deposits';
import { newId } from '../../domain/ids';
import { formatAmount, parseAmount, parseAmountParam, USDC } from '../../domain/money';
import { freshRateCache } from '../rates/cache';
import { depositRate } from '../rates/pricing-rate';
import { DEPOSIT_WORKFLOW_TYPE, type DepositCreditResult, type DepositWorkflowInput } from '../../../workflows/deposit.contract';
import type { Caller, Core } from '../context';
import { emitEvent } from '../events';
import { post } from '../ledger';
import { holdCardReserve } from '../cards/reserve';
import { parseDuration } from '../../domain/durations';
import { enqueueWorkflowStart, flushWorkflowStart } from '../workflow-starts';
import { matchDeposit } from './matching';
import { getVirtualAccountRow } from './virtual-accounts';
import { depositEvent } from '../../domain/domain-events';
import { ownedOr404, scoped } from '../tenancy';

/** A stored deposit row (amount in minor units of currency; the rest micro-USDC). */
export type DepositRow = Selectable<DepositsTable>;

/** Largest single deposit, in units of its currency. */
export const MAX_DEPOSIT_UNITS = '10000000';
/** Longest reference, sender name or external id, in characters. */
export const MAX_DEPOSIT_TEXT = 140;
export const MAX_EXTERNAL_ID = 255;

/** The deposit of a row. */
export function toDeposit(row: DepositRow): Deposit {
  const live = row.rate_source !== null && row.rate_as_of !== null && row.reference_rate !== null && row.fx_spread_bps !== null;
  return {
    id: row.id,
    source: row.source as DepositSource,
    status: row.status as DepositStatus,
    virtualAccountId: row.virtual_account_id,
    amount: { minor: BigInt(row.amount), currency: row.currency },
    rate: row.rate,
    converted: { minor: BigInt(row.gross_amount), currency: USDC },
    fees: { fxSpread: BigInt(row.fee_fx_spread), processing: BigInt(row.fee_processing), total: BigInt(row.fee_total) },
    credited: { minor: BigInt(row.net_amount), currency: USDC },
    rateDetails: live
      ? { referenceRate: row.reference_rate as string, source: row.rate_source as string, asOf: new Date(row.rate_as_of as Date), spreadBps: row.fx_spread_bps as number }
      : null,
    reference: row.reference,
    senderName: row.sender_name,
    externalId: row.external_id,
    paymentRequestId: row.payment_request_id,
    match: row.match_result as DepositMatchResult | null,
    receivedAt: new Date(row.received_at),
    creditedAt: row.credited_at ? new Date(row.credited_at) : null,
    createdAt: new Date(row.created_at),
  };
}

const depositEventOf = (row: DepositRow, type: string, status: 'received' | 'credited' | 'dropped') =>
  depositEvent({ businessId: row.business_id, environment: row.environment }, type, toDeposit(row), status);

/** Input of {@link receiveDeposit} (decimal strings); `virtualAccountId` only for `virtual_account`. */
export interface ReceiveDepositInput {
  source: DepositSource;
  virtualAccountId?: string | null;
  /** Decimal string (2 decimals fiat, 6 USDC). */
  amount: unknown;
  currency: unknown;
  reference?: string | null;
  senderName?: string | null;
  /** The deduplication key of the transfer. */
  externalId: string;
  receivedAt?: Date;
  /** false: record `received` without starting the credit ({@link startDepositCredit} later). Default true. */
  creditOnReceipt?: boolean;
  /**
   * A live card payment's processing fee as the card processor states it, minor units of `currency`
   * (docs/getting-paid.md "Card payments"); null or absent: the card fee of {@link convertDeposit}.
   */
  processorFee?: bigint | null;
  /** A card payment made for this payment request: the credit marks it paid when still open (docs/getting-paid.md "Matching"). */
  paymentRequestId?: string | null;
}

export interface ReceivedDeposit {
  deposit: Deposit;
  created: boolean;
}

function optionalText(v: unknown, param: string, max: number): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.length > max) throw validationError(param, `${param} must be a string of at most ${max} characters`);
  return v.trim().length ? v : null;
}

/**
 * Records money that arrived and its depositWorkflow start in one transaction; idempotent on (source, externalId).
 * 400 validation_error (Surface A params); 404 not_found (`virtual_account_id`); 409 idempotency_conflict (`external_id`).
 */
export async function receiveDeposit(core: Core, caller: Caller, input: ReceiveDepositInput): Promise<ReceivedDeposit> {
  if (!(DEPOSIT_SOURCES as readonly string[]).includes(input.source)) {
    throw validationError('source', `source must be one of ${DEPOSIT_SOURCES.join(', ')}`);
  }
  if (typeof input.externalId !== 'string' || input.externalId.length === 0 || input.externalId.length > MAX_EXTERNAL_ID) {
    throw validationError('external_id', `external_id must be 1 to ${MAX_EXTERNAL_ID} characters`);
  }
  if (typeof input.currency !== 'string' || !(DEPOSIT_CURRENCIES as readonly string[]).includes(input.currency)) {
    throw validationError('currency', `currency must be one of ${DEPOSIT_CURRENCIES.join(', ')}`);
  }
  const currency = input.currency;
  let virtualAccountId: string | null = null;
  if (input.source === 'virtual_account') {
    if (typeof input.virtualAccountId !== 'string' || input.virtualAccountId.length === 0) {
      throw validationError('virtual_account_id', 'virtual_account_id is required');
    }
    const va = await getVirtualAccountRow(core.db, caller, input.virtualAccountId, 'virtual_account_id');
    if (va.currency !== currency) {
      throw validationError('currency', `Virtual account ${va.id} receives ${va.currency}, not ${currency}`);
    }
    if (va.status !== 'active') throw validationError('virtual_account_id', `Virtual account ${va.id} is ${va.status}`);
    virtualAccountId = va.id;
  } else if (input.source === 'crypto' && currency !== USDC) {
    throw validationError('currency', 'On-chain deposits are USDC');
  } else if (input.source === 'card' && currency === USDC) {
    throw validationError('currency', 'Card payments are in a fiat currency');
  }
  const amount = parseAmountParam(input.amount, currency, 'amount');
  if (amount > parseAmount(MAX_DEPOSIT_UNITS, currency)) {
    throw validationError('amount', `amount must be at most ${MAX_DEPOSIT_UNITS} ${currency}`);
  }
  if (currency !== USDC && caller.environment === 'live') await freshRateCache(core);
  const dr = currency === USDC ? { rate: '1' } : depositRate(core, caller.environment, currency);
  if (!dr) {
    // Money that arrived is never refused: the rail inbox retries when a rate source is back.
    throw new Error(`No usable live USDC/${currency} rate: the deposit waits for a rate source`);
  }
  const processorFee = input.source === 'card' ? (input.processorFee ?? null) : null;
  const conversion = convertDeposit(amount, currency, dr.rate, input.source, dr.live?.spreadBps, processorFee);
  if (conversion.netAmount <= 0n) {
    throw validationError('amount', `amount is too small: ${formatAmount(conversion.fees.total, USDC)} USDC of fees exceed what it converts to`);
  }
  const reference = optionalText(input.reference, 'reference', MAX_DEPOSIT_TEXT);
  const senderName = optionalText(input.senderName, 'sender_name', MAX_DEPOSIT_TEXT);
  const receivedAt = input.receivedAt ?? core.now();

  const id = newId('dep');
  const inserted = await core.db.transaction().execute(async (tx) => {
    // The transaction may have waited out a database failover (DATABASE_FAILOVER_WAIT): a rate
    // that expired meanwhile is not used; the caller's retry prices again (as for no rate, above).
    if (dr.live && core.now().getTime() > dr.live.rate.usableUntil.getTime()) {
      throw new Error(`The live USDC/${currency} rate expired before the deposit was recorded: the deposit is priced again on retry`);
    }
    const row = await tx
      .insertInto('deposits')
      .values({
        id,
        business_id: caller.businessId,
        environment: caller.environment,
        source: input.source,
        status: 'received',
        virtual_account_id: virtualAccountId,
        amount,
        currency,
        rate: conversion.rate,
        gross_amount: conversion.grossAmount,
        fee_fx_spread: conversion.fees.fxSpread,
        fee_processing: conversion.fees.processing,
        fee_total: conversion.fees.total,
        net_amount: conversion.netAmount,
        rate_source: dr.live?.rate.source ?? null,
        rate_as_of: dr.live?.rate.asOf ?? null,
        rate_usable_until: dr.live?.rate.usableUntil ?? null,
        reference_rate: dr.live?.rate.ask ?? null,
        fx_spread_bps: dr.live?.spreadBps ?? null,
        reference,
        sender_name: senderName,
        external_id: input.externalId,
        match_result: null,
        // Only a card payment names its request up front; matching settles it at the credit.
        payment_request_id: input.source === 'card' ? (input.paymentRequestId ?? null) : null,
        received_at: receivedAt,
        credited_at: null,
      })
      .onConflict((oc) => oc.columns(['business_id', 'environment', 'source', 'external_id']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    await emitEvent(tx, depositEventOf(row, DEPOSIT_EVENT_ON_ENTER.received, 'received'));
    if (input.creditOnReceipt !== false) await enqueueDepositCredit(tx, row);
    return row;
  });

  const row =
    inserted ??
    (await scoped(core.db, caller)
      .selectFrom('deposits')
      .selectAll()
      .where('source', '=', input.source)
      .where('external_id', '=', input.externalId)
      .executeTakeFirstOrThrow());
  if (!inserted && (row.amount !== amount || row.currency !== currency || row.virtual_account_id !== virtualAccountId)) {
    throw new ApiError(
      409,
      'idempotency_conflict',
      `external_id ${input.externalId} was already received as a deposit of ${formatAmount(row.amount, row.currency)} ${row.currency} (${row.id})`,
      'external_id',
    );
  }
  if (input.creditOnReceipt !== false) await flushDepositCredit(core, row.id);
  return { deposit: toDeposit(row), created: !!inserted };
}

async function enqueueDepositCredit(tx: DbOrTx, row: Pick<DepositRow, 'id' | 'business_id' | 'environment'>): Promise<void> {
  const wfInput: DepositWorkflowInput = { depositId: row.id };
  await enqueueWorkflowStart(tx, {
    workflowId: row.id,
    workflowType: DEPOSIT_WORKFLOW_TYPE,
    args: [wfInput],
    searchAttributes: { BusinessId: row.business_id, Environment: row.environment },
  });
}

async function flushDepositCredit(core: Core, depositId: string): Promise<void> {
  try {
    await flushWorkflowStart(core, depositId);
  } catch (err) {
    core.log.warn({ err, depositId }, 'deposit workflow start deferred to the relay');
  }
}

/** Records the credit start of a deposit received with `creditOnReceipt: false`; false when it is not `received`. */
export async function recordDepositCreditStart(db: DbOrTx, depositId: string): Promise<boolean> {
  const dep = await db.selectFrom('deposits').select(['id', 'business_id', 'environment', 'status']).where('id', '=', depositId).executeTakeFirst();
  if (!dep || dep.status === 'dropped') return false;
  await enqueueDepositCredit(db, dep);
  return true;
}

/** {@link recordDepositCreditStart}, then starts the workflow at once. */
export async function startDepositCredit(core: Core, depositId: string): Promise<boolean> {
  const ok = await recordDepositCreditStart(core.db, depositId);
  if (ok) await flushDepositCredit(core, depositId);
  return ok;
}

/** Marks a `received` deposit `dropped` with deposit.dropped (never one whose credit started); returns whether it moved. */
export async function dropDeposit(db: DbOrTx, depositId: string): Promise<boolean> {
  const started = await db.selectFrom('workflow_starts').select('workflow_id').where('workflow_id', '=', depositId).executeTakeFirst();
  if (started) return false;
  const row = await db.updateTable('deposits').set({ status: 'dropped' }).where('id', '=', depositId).where('status', '=', 'received').returningAll().executeTakeFirst();
  if (!row) return false;
  await emitEvent(db, depositEventOf(row, DEPOSIT_EVENT_ON_ENTER.dropped, 'dropped'));
  return true;
}

/**
 * The credit step of depositWorkflow, one idempotent transaction: posts `deposit:{id}:credit` (external ->
 * available, net); for a card deposit also the processing fee `deposit:{id}:card_fee` (external ->
 * card_fees) and, for a live card payment through a processor, the reserve share (holdCardReserve,
 * `deposit:{id}:reserve`; docs/getting-paid.md "Card payments"); matches payment requests, emits
 * deposit.credited. Throws Error for an unknown id.
 */
export async function creditDeposit(core: Core, depositId: string): Promise<DepositCreditResult> {
  return core.db.transaction().execute(async (tx) => {
    const dep = await tx.selectFrom('deposits').selectAll().where('id', '=', depositId).forUpdate().executeTakeFirst();
    if (!dep) throw new Error(`deposit ${depositId} does not exist`);
    if (dep.status === 'credited') {
      return { depositId, status: 'credited', paymentRequestId: dep.payment_request_id, match: dep.match_result as DepositMatchResult | null };
    }
    if (dep.status === 'dropped') return { depositId, status: 'dropped', paymentRequestId: null, match: null };
    // The posting locks the balance row, so matching sees every earlier match committed.
    await post(tx, {
      businessId: dep.business_id,
      environment: dep.environment,
      key: `deposit:${dep.id}:credit`,
      from: 'external',
      to: 'available',
      amount: dep.net_amount,
    });
    const now = core.now();
    if (dep.source === 'card') await creditCardShares(tx, core, dep, now);
    const match = await matchDeposit(tx, core, dep, now);
    const updated = await tx
      .updateTable('deposits')
      .set({ status: 'credited', credited_at: now, match_result: match.result, payment_request_id: match.paymentRequestId })
      .where('id', '=', dep.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await emitEvent(tx, depositEventOf(updated, DEPOSIT_EVENT_ON_ENTER.credited, 'credited'));
    return { depositId, status: 'credited', paymentRequestId: match.paymentRequestId, match: match.result };
  });
}

/**
 * A card deposit's extra postings, in the credit's transaction (docs/getting-paid.md "Card
 * payments"): the processing fee external -> card_fees, then, for a live card payment (a
 * `card_payments` row is the deposit's external id), the rolling reserve's share.
 */
async function creditCardShares(tx: DbOrTx, core: Core, dep: DepositRow, now: Date): Promise<void> {
  const fee = BigInt(dep.fee_processing);
  if (fee > 0n) {
    await post(tx, { businessId: dep.business_id, environment: dep.environment, key: `deposit:${dep.id}:card_fee`, from: 'external', to: 'card_fees', amount: fee });
  }
  if (dep.environment !== 'live') return;
  const payment = await tx
    .selectFrom('card_payments')
    .select('id')
    .where('id', '=', dep.external_id)
    .where('business_id', '=', dep.business_id)
    .where('environment', '=', dep.environment)
    .executeTakeFirst();
  if (!payment) return;
  await holdCardReserve(
    tx,
    { businessId: dep.business_id, environment: dep.environment, depositId: dep.id, cardPaymentId: payment.id, credited: BigInt(dep.net_amount), creditedAt: now },
    { percent: core.config.CARD_RESERVE_PERCENT, periodMs: parseDuration(core.config.CARD_RESERVE_PERIOD) },
  );
}

/** The caller's deposit row; 404 not_found otherwise. */
export async function getDepositRow(db: DbOrTx, caller: Caller, id: string): Promise<DepositRow> {
  return ownedOr404(db, caller, 'deposits', id, 'deposit');
}

/** GET /deposits/{id}. 404 not_found. */
export async function getDeposit(core: Core, caller: Caller, id: string): Promise<Deposit> {
  return toDeposit(await getDepositRow(core.db, caller, id));
}

export interface ListDepositsQuery {
  limit: number;
  cursor?: string;
  currency?: string;
  source?: string;
  virtualAccountId?: string;
}

/** GET /deposits: newest first, cursor paging. 400 validation_error (`currency`, `source`, `cursor`). */
export async function listDeposits(core: Core, caller: Caller, q: ListDepositsQuery): Promise<Page<Deposit>> {
  let query = scoped(core.db, caller)
    .selectFrom('deposits')
    .selectAll();
  if (q.currency !== undefined) {
    if (!(DEPOSIT_CURRENCIES as readonly string[]).includes(q.currency)) {
      throw validationError('currency', `currency must be one of ${DEPOSIT_CURRENCIES.join(', ')}`);
    }
    query = query.where('currency', '=', q.currency);
  }
  if (q.source !== undefined) {
    if (!(DEPOSIT_SOURCES as readonly string[]).includes(q.source)) {
      throw validationError('source', `source must be one of ${DEPOSIT_SOURCES.join(', ')}`);
    }
    query = query.where('source', '=', q.source);
  }
  if (q.virtualAccountId !== undefined) query = query.where('virtual_account_id', '=', q.virtualAccountId);
  const page = await paginate(query, 'id', { limit: q.limit, cursor: q.cursor });
  return { data: page.rows.map(toDeposit), nextCursor: page.nextCursor };
}
