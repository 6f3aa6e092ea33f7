/**
 * Deposits: money that arrived for a business (docs/getting-paid.md "Deposits"). One core for
 * every way money comes in — `source` virtual_account (a bank transfer into a virtual account;
 * Surface A and Surface B `/funding/accounts`), crypto (USDC on chain; Surface B `/funding/crypto`)
 * and card (Surface B card top-ups) — so every surface lists and credits them alike.
 *
 * Lifecycle (src/domain/funding.ts): {@link receiveDeposit} writes the deposit `received`, its
 * event deposit.received and the depositWorkflow start in one transaction; the workflow's one step
 * {@link creditDeposit} posts `deposit:{id}:credit` (external -> available, the net amount),
 * matches payment requests (./matching.ts), marks the deposit `credited` and emits
 * deposit.credited, all in one transaction. The same transfer delivered twice (same source and
 * external id) is the same deposit, credited once.
 *
 * Conversion: the deposit amount is converted to USDC at the sandbox mid-market rate
 * (src/sandbox/fx.ts) or, in live, the ask side of the live rate (docs/rates.md "Deposits"),
 * rounded down; fees (FX spread, card processing) are taken from it and shown. A live deposit
 * records the rate's source, as-of time and spread.
 */
import type { Selectable } from 'kysely';
import { type ListEnvelope, paginate } from '../paging';
import type { DbOrTx } from '../../db/schema';
import type { DepositsTable } from '../../db/tables/funding';
import { ApiError, notFound, validationError } from '../../domain/errors';
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
import { eventObjectData } from '../../domain/event-objects';
import { newId } from '../../domain/ids';
import { formatAmount, parseAmount, parseAmountParam, USDC } from '../../domain/money';
import { depositRate } from '../rates/pricing-rate';
import { DEPOSIT_WORKFLOW_TYPE, type DepositCreditResult, type DepositWorkflowInput } from '../../../workflows/deposit.contract';
import type { Caller, Core } from '../context';
import { emitEvent } from '../events';
import { post } from '../ledger';
import { enqueueWorkflowStart, flushWorkflowStart } from '../workflow-starts';
import { matchDeposit } from './matching';
import { getVirtualAccountRow } from './virtual-accounts';

/** A stored deposit row (amount in minor units of currency; the rest micro-USDC). */
export type DepositRow = Selectable<DepositsTable>;

/** Largest single deposit, in units of its currency (keeps amounts far from the bigint range). */
export const MAX_DEPOSIT_UNITS = '10000000';
/** Largest reference / sender name / external id (characters). */
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

/** The JSON form of a deposit row recorded with its events (src/domain/event-objects.ts). */
const depositEventData = (row: DepositRow) => eventObjectData({ object: 'deposit', value: toDeposit(row) });

/**
 * Input of {@link receiveDeposit} (core form; amounts as decimal strings).
 * - `virtual_account`: `virtualAccountId` required; `currency` must be the account's.
 * - `crypto`: currency USDC; no virtual account.
 * - `card`: currency USD; no virtual account.
 */
export interface ReceiveDepositInput {
  source: DepositSource;
  virtualAccountId?: string | null;
  /** Decimal string in `currency` (2 decimals fiat, 6 USDC). */
  amount: unknown;
  currency: unknown;
  reference?: string | null;
  senderName?: string | null;
  /** The bank's / network's / card processor's id of the transfer: the deduplication key. */
  externalId: string;
  /** When the money arrived (default now). */
  receivedAt?: Date;
  /**
   * false: record the deposit `received` without starting its credit (an on-chain transfer seen at
   * `confirmed`; {@link startDepositCredit} at `finalized`, or {@link dropDeposit}). Default true.
   */
  creditOnReceipt?: boolean;
}

/** What {@link receiveDeposit} returns: the deposit, and whether this call created it. */
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
 * Records money that arrived for the caller's business (any surface; the sandbox's
 * `POST /sandbox/deposits`, Surface B's crypto and card funding): validates, converts at the
 * sandbox rate, and in one transaction inserts the deposit `received`, emits deposit.received
 * (dedupe `deposit:{id}:received`) and records the depositWorkflow start; starts it after commit
 * (the relay does if this process dies). Idempotent on (source, externalId): the same transfer
 * again returns the existing deposit with `created: false` (credited once).
 *
 * Errors (params are Surface A's wire names): 400 validation_error (`source`, `amount`: malformed,
 * above {@link MAX_DEPOSIT_UNITS} or too small to cover its fees; `currency`: unknown or not the
 * account's; `reference`, `sender_name`, `external_id`); 404 not_found (`virtual_account_id`) for
 * an account of another business or environment; 409 idempotency_conflict (`external_id`) when
 * the external id was already used for a different amount, currency or account.
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
  } else if (input.source === 'card' && currency !== 'USD') {
    throw validationError('currency', 'Card top-ups are USD');
  }
  const amount = parseAmountParam(input.amount, currency, 'amount');
  if (amount > parseAmount(MAX_DEPOSIT_UNITS, currency)) {
    throw validationError('amount', `amount must be at most ${MAX_DEPOSIT_UNITS} ${currency}`);
  }
  const dr = currency === USDC ? { rate: '1' } : depositRate(core, caller.environment, currency);
  if (!dr) {
    // Money that arrived is never refused: the caller (the rail inbox) keeps the credit and tries
    // again on its next poll, when a source is back (docs/rates.md "Deposits").
    throw new Error(`No usable live USDC/${currency} rate: the deposit waits for a rate source`);
  }
  const conversion = convertDeposit(amount, currency, dr.rate, input.source, dr.live?.spreadBps);
  if (conversion.netAmount <= 0n) {
    throw validationError('amount', `amount is too small: ${formatAmount(conversion.fees.total, USDC)} USDC of fees exceed what it converts to`);
  }
  const reference = optionalText(input.reference, 'reference', MAX_DEPOSIT_TEXT);
  const senderName = optionalText(input.senderName, 'sender_name', MAX_DEPOSIT_TEXT);
  const receivedAt = input.receivedAt ?? core.now();

  const id = newId('dep');
  const inserted = await core.db.transaction().execute(async (tx) => {
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
        payment_request_id: null,
        received_at: receivedAt,
        credited_at: null,
      })
      .onConflict((oc) => oc.columns(['business_id', 'environment', 'source', 'external_id']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    await emitEvent(tx, {
      businessId: row.business_id,
      environment: row.environment,
      type: DEPOSIT_EVENT_ON_ENTER.received,
      objectType: 'deposit',
      objectId: row.id,
      data: depositEventData(row),
      dataFormat: 'domain',
      dedupeKey: `deposit:${row.id}:received`,
    });
    if (input.creditOnReceipt !== false) await enqueueDepositCredit(tx, row);
    return row;
  });

  const row =
    inserted ??
    (await core.db
      .selectFrom('deposits')
      .selectAll()
      .where('business_id', '=', caller.businessId)
      .where('environment', '=', caller.environment)
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

/**
 * Starts the credit of a deposit recorded with `creditOnReceipt: false` (an on-chain transfer that
 * reached `finalized`): records the depositWorkflow start (workflow-start outbox, once per deposit:
 * the start is keyed by the deposit id, the credit posting by `deposit:{id}:credit`) in `tx` when
 * given, else on its own. Returns false, recording nothing, when the deposit is not `received`
 * (dropped). Call {@link flushDepositCredit} through {@link startDepositCredit} after commit.
 */
export async function recordDepositCreditStart(db: DbOrTx, depositId: string): Promise<boolean> {
  const dep = await db.selectFrom('deposits').select(['id', 'business_id', 'environment', 'status']).where('id', '=', depositId).executeTakeFirst();
  if (!dep || dep.status === 'dropped') return false;
  await enqueueDepositCredit(db, dep);
  return true;
}

/** {@link recordDepositCreditStart} then starts the workflow at once (the relay does if this fails). */
export async function startDepositCredit(core: Core, depositId: string): Promise<boolean> {
  const ok = await recordDepositCreditStart(core.db, depositId);
  if (ok) await flushDepositCredit(core, depositId);
  return ok;
}

/**
 * Marks a `received` deposit `dropped` (its on-chain transaction disappeared before finality) and
 * emits deposit.dropped (dedupe `deposit:{id}:dropped`), in one guarded statement pair in `tx`:
 * a deposit whose credit was started (or that is credited) is never dropped. Returns whether it moved.
 */
export async function dropDeposit(db: DbOrTx, depositId: string): Promise<boolean> {
  const started = await db.selectFrom('workflow_starts').select('workflow_id').where('workflow_id', '=', depositId).executeTakeFirst();
  if (started) return false;
  const row = await db.updateTable('deposits').set({ status: 'dropped' }).where('id', '=', depositId).where('status', '=', 'received').returningAll().executeTakeFirst();
  if (!row) return false;
  await emitEvent(db, {
    businessId: row.business_id,
    environment: row.environment,
    type: DEPOSIT_EVENT_ON_ENTER.dropped,
    objectType: 'deposit',
    objectId: row.id,
    data: depositEventData(row),
      dataFormat: 'domain',
    dedupeKey: `deposit:${row.id}:dropped`,
  });
  return true;
}

/**
 * The credit step of depositWorkflow (one transaction, idempotent; see the file header): locks the
 * deposit; if already credited returns what was done; else posts `deposit:{id}:credit` (external ->
 * available, net_amount), matches payment requests (virtual account deposits only), sets credited,
 * emits deposit.credited (dedupe `deposit:{id}:credited`). Throws Error for an unknown id.
 */
export async function creditDeposit(core: Core, depositId: string): Promise<DepositCreditResult> {
  return core.db.transaction().execute(async (tx) => {
    const dep = await tx.selectFrom('deposits').selectAll().where('id', '=', depositId).forUpdate().executeTakeFirst();
    if (!dep) throw new Error(`deposit ${depositId} does not exist`);
    if (dep.status === 'credited') {
      return { depositId, status: 'credited', paymentRequestId: dep.payment_request_id, match: dep.match_result as DepositMatchResult | null };
    }
    // A dropped on-chain deposit is never credited (its credit is never started; this guards it all the same).
    if (dep.status === 'dropped') return { depositId, status: 'dropped', paymentRequestId: null, match: null };
    // The posting locks the business's balance row: credits of one business are serialized, so
    // matching below sees every earlier match committed (never two requests paid by one deposit,
    // never one request by two deposits; unique indexes back this up).
    await post(tx, {
      businessId: dep.business_id,
      environment: dep.environment,
      key: `deposit:${dep.id}:credit`,
      from: 'external',
      to: 'available',
      amount: dep.net_amount,
    });
    const now = core.now();
    const match = await matchDeposit(tx, core, dep, now);
    const updated = await tx
      .updateTable('deposits')
      .set({ status: 'credited', credited_at: now, match_result: match.result, payment_request_id: match.paymentRequestId })
      .where('id', '=', dep.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await emitEvent(tx, {
      businessId: updated.business_id,
      environment: updated.environment,
      type: DEPOSIT_EVENT_ON_ENTER.credited,
      objectType: 'deposit',
      objectId: updated.id,
      data: depositEventData(updated),
      dataFormat: 'domain',
      dedupeKey: `deposit:${updated.id}:credited`,
    });
    return { depositId, status: 'credited', paymentRequestId: match.paymentRequestId, match: match.result };
  });
}

/** The deposit row of the caller; 404 not_found otherwise. */
export async function getDepositRow(db: DbOrTx, caller: Caller, id: string): Promise<DepositRow> {
  const row = await db
    .selectFrom('deposits')
    .selectAll()
    .where('id', '=', id)
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .executeTakeFirst();
  if (!row) throw notFound('deposit', id);
  return row;
}

/** GET /deposits/{id} (extension). 404 not_found for another tenant's or an unknown id. */
export async function getDeposit(core: Core, caller: Caller, id: string): Promise<Deposit> {
  return toDeposit(await getDepositRow(core.db, caller, id));
}

/** Filters of GET /deposits (extension; Surface B GET /funding/deposits: currency). */
export interface ListDepositsQuery {
  limit: number;
  cursor?: string;
  currency?: string;
  source?: string;
  virtualAccountId?: string;
}

/** GET /deposits: newest first, cursor paging. 400 validation_error (`currency`, `source`, `cursor`). */
export async function listDeposits(core: Core, caller: Caller, q: ListDepositsQuery): Promise<ListEnvelope<Deposit>> {
  let query = core.db
    .selectFrom('deposits')
    .selectAll()
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment);
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
  return { data: page.rows.map(toDeposit), next_cursor: page.next_cursor };
}
