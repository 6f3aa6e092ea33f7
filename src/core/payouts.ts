/**
 * Payouts (spec "Payout", "Payout create body", "Payout status", "Events, Surface A"; issue
 * "Payouts end to end"). The contract the API surfaces and the disbursements engine call.
 *
 * Flow: {@link preparePayout} validates and prices (read-only) -> {@link insertPayout} writes the
 * payout row, its hold, the payout.submitted event and the workflow start in the caller's
 * transaction -> `payoutWorkflow` (workflows/payout.ts) drives the lifecycle through the
 * activities, which call {@link transitionPayout} and the attempt functions below.
 *
 * Pricing: with a `quote_id` the payout takes the quote's amounts, rate and fees; without one it is
 * priced at the current sandbox mid-market rate when it is accepted. The spec's "priced at
 * execution" means exactly that: execution is acceptance (POST /payouts), because the hold must
 * know the debit total before the 201 is returned.
 *
 * Money (src/core/ledger.ts, keys unique per business and environment):
 * | posting               | movement           | when                                                   |
 * |-----------------------|--------------------|--------------------------------------------------------|
 * | `payout:{id}:hold`    | available -> held  | accepted (funding 'balance'; a disbursement holds its batch itself) |
 * | `payout:{id}:settle`  | held -> sent       | -> succeeded                                           |
 * | `payout:{id}:release` | held -> available  | -> failed, -> canceled                                 |
 * | `payout:{id}:refund`  | sent -> available  | succeeded -> refunded (amount and fees credited back)  |
 * Every amount is the payout's debit_total (source amount + fees, micro-USDC).
 *
 * Wire decisions (documented extensions):
 * - `attempts` is the number of delivery attempts begun or scheduled: 1 from acceptance (the spec's
 *   creation response shows `attempts: 1`), one more per retry. GET /payouts/{id} also returns
 *   `attempt_history` ({@link WireAttempt}): one element per rail call made so far (empty while a
 *   claim link awaits its claim).
 * - `recipient` echoes the destination, masked (maskRecipientDetails): `{type, ...fields}`.
 * - `confirmed_received_at` (Receipt) is set when the rail confirms delivery (= delivered_at of a
 *   succeeded payout), and cleared again if the provider later returns the funds (refunded).
 * - `estimated_arrival` is acceptance time + the channel's maximum arrival (catalog `arrival.max`).
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { PayoutAttemptsTable, PayoutsTable } from '../db/tables/payouts';
import type { DbOrTx } from '../db/schema';
import {
  type ChannelDefinition,
  channelAcceptsRecipientType,
  channelStatus,
  findChannel,
  type RecipientType,
} from '../domain/channels';
import { parseDuration } from '../domain/durations';
import { ApiError, notFound, validationError } from '../domain/errors';
import { newId, randomToken } from '../domain/ids';
import { parseAmountParam, formatAmount, USDC } from '../domain/money';
import {
  canTransition,
  EVENT_ON_ENTER,
  PAYOUT_STATUSES,
  type PayoutFailureCode,
  type PayoutStatus,
} from '../domain/payout-state';
import { type Price, price as priceOf, type WireFees } from '../domain/pricing';
import { type InlineRecipient, maskRecipientDetails, validateInlineRecipient } from '../domain/recipients';
import { midRate } from '../sandbox/fx';
import { type ListEnvelope, paginate } from '../api/pagination';
import type { AttemptResult, PayoutWorkflowInput } from '../../workflows/payout.contract';
import { type ClaimMethod, PAYOUT_WORKFLOW_TYPE } from '../../workflows/payout.contract';
import { cancelPayoutWorkflow, claimPayoutWorkflow, type PayoutUpdateOutcome } from '../temporal/payout-gateway';
import type { Caller, Core } from './context';
import { emitEvent } from './events';
import { type Account, getBalance, InsufficientFundsError, insufficientBalance, post } from './ledger';
import { enqueueWorkflowStart, flushWorkflowStart, type PendingStart } from './workflow-starts';

/** A stored payout row. Amounts: micro-USDC except destination_amount (minor units of destination_currency). */
export type PayoutRow = Selectable<PayoutsTable>;
/** A stored delivery attempt row. */
export type PayoutAttemptRow = Selectable<PayoutAttemptsTable>;

/** Largest `reference` (spec "Limits": payout reference length). */
export const MAX_REFERENCE_LENGTH = 140;
/** Largest `memo` (extension: the spec gives no limit; rails carry short remittance texts). */
export const MAX_MEMO_LENGTH = 255;
/** Largest `message` (extension: the spec gives no limit). */
export const MAX_MESSAGE_LENGTH = 500;

// ---------------------------------------------------------------------------------------------
// Preparation

/**
 * Spec "Payout create body" in core form (decimal strings as given on the wire). Exactly one of
 * recipientId / recipient; exactly one of sourceAmount (USDC) / destinationAmount (channel
 * currency), both optional with a quoteId (the quote fixes the amounts; if given they must match).
 */
export interface PayoutRequest {
  channel: string;
  recipientId?: string;
  recipient?: InlineRecipient;
  quoteId?: string;
  sourceAmount?: string;
  destinationAmount?: string;
  reference?: string;
  memo?: string;
  message?: string;
}

/** A validated and priced payout request, ready for {@link insertPayout}. */
export interface PreparedPayout {
  channel: ChannelDefinition;
  /** Saved recipient id, or null for an inline recipient. */
  recipientId: string | null;
  recipientType: RecipientType;
  /** Normalised destination details (unmasked: stored as is, masked in every response). */
  recipientDetails: Record<string, unknown>;
  quoteId: string | null;
  /** Amounts in micro-USDC (destination in minor units of its currency); debitTotal is what is held. */
  price: Price;
  reference: string | null;
  memo: string | null;
  message: string | null;
}

const isGiven = (v: unknown) => v !== undefined && v !== null;

/** Re-throws an ApiError with its param prefixed (`recipient.number` -> `items.3.recipient.number`). */
function prefixed<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (prefix && e instanceof ApiError && e.param) {
      throw new ApiError(e.status, e.code, e.message, `${prefix}${e.param}`, e.details);
    }
    throw e;
  }
}

function optionalText(value: unknown, param: string, max: number): string | null {
  if (!isGiven(value)) return null;
  if (typeof value !== 'string') throw validationError(param, `${param} must be a string`);
  if (value.length > max) throw validationError(param, `${param} must be at most ${max} characters (got ${value.length})`);
  return value;
}


/**
 * Validates and prices a payout request without writing anything (spec "Payout create body",
 * "Errors", "Limits"). Errors name the wire param, prefixed by `opts.paramPrefix` (e.g. `items.3.`):
 * - 400 validation_error: channel missing/unknown (`channel`); not exactly one of recipient_id /
 *   recipient (`recipient_id`, or `recipient` when both); not exactly one of source_amount /
 *   destination_amount; malformed amount or too many decimals (2 fiat, 6 USDC); reference over 140
 *   characters; memo/message too long; `message` on a channel other than claim_link; a saved
 *   recipient whose type the channel does not pay (`recipient_id`); invalid inline recipient
 *   (`recipient.<field>`); a quote of another channel (`quote_id`); an amount that differs from the
 *   quote's.
 * - 400 channel_unavailable (`channel`): channel paused (PAUSED_CHANNELS) or live environment.
 * - 400 amount_out_of_range: source amount outside the channel limits.
 * - 404 not_found: recipient_id / quote_id unknown in this business and environment.
 * - 410 quote_expired (`quote_id`): the quote's 60 seconds are over.
 * - 422 recipient_not_ready: saved recipient in needs_fields or not payable on this channel
 *   (`recipient_id`, details.missing_fields); inline recipient missing fields (`recipient`).
 */
export async function preparePayout(
  core: Core,
  caller: Caller,
  req: PayoutRequest,
  opts: { paramPrefix?: string } = {},
): Promise<PreparedPayout> {
  const pre = opts.paramPrefix ?? '';
  const checked = prefixed(pre, () => checkSyntax(req));
  return prepareChecked(core, caller, req, pre, checked);
}

interface SyntaxChecked {
  channel: ChannelDefinition;
  sourceMinor?: bigint;
  destinationMinor?: bigint;
  reference: string | null;
  memo: string | null;
  message: string | null;
}

/** The checks that need no database (unprefixed params). */
function checkSyntax(req: PayoutRequest): SyntaxChecked {
  if (typeof req.channel !== 'string' || req.channel.length === 0) throw validationError('channel', 'channel is required');
  const channel = findChannel(req.channel);
  if (!channel) throw validationError('channel', `Unknown channel '${req.channel}'; GET /channels lists the channels`);

  const hasId = isGiven(req.recipientId);
  const hasInline = isGiven(req.recipient);
  if (hasId && hasInline) throw validationError('recipient', 'Give exactly one of recipient_id or recipient, not both');
  if (!hasId && !hasInline) throw validationError('recipient_id', 'recipient_id or recipient is required');
  if (hasId && (typeof req.recipientId !== 'string' || req.recipientId.length === 0)) {
    throw validationError('recipient_id', 'recipient_id must be a non-empty string');
  }

  const hasSource = isGiven(req.sourceAmount);
  const hasDest = isGiven(req.destinationAmount);
  if (hasSource && hasDest) {
    throw validationError('destination_amount', 'Give exactly one of source_amount or destination_amount, not both');
  }
  if (!hasSource && !hasDest && !isGiven(req.quoteId)) {
    throw validationError('source_amount', 'source_amount or destination_amount is required');
  }
  const sourceMinor = hasSource ? parseAmountParam(req.sourceAmount, USDC, 'source_amount') : undefined;
  const destinationMinor = hasDest ? parseAmountParam(req.destinationAmount, channel.currency, 'destination_amount') : undefined;

  const reference = optionalText(req.reference, 'reference', MAX_REFERENCE_LENGTH);
  const memo = optionalText(req.memo, 'memo', MAX_MEMO_LENGTH);
  const message = optionalText(req.message, 'message', MAX_MESSAGE_LENGTH);
  if (message !== null && channel.id !== 'claim_link') {
    throw validationError('message', `message is shown to a claim link's recipient; channel ${channel.id} does not take one`);
  }
  if (isGiven(req.quoteId) && (typeof req.quoteId !== 'string' || req.quoteId.length === 0)) {
    throw validationError('quote_id', 'quote_id must be a non-empty string');
  }
  return { channel, sourceMinor, destinationMinor, reference, memo, message };
}

async function prepareChecked(
  core: Core,
  caller: Caller,
  req: PayoutRequest,
  pre: string,
  s: SyntaxChecked,
): Promise<PreparedPayout> {
  const { channel } = s;
  const p = (name: string) => `${pre}${name}`;

  if (channelStatus(channel, caller.environment, core.config.pausedChannels) !== 'live') {
    throw new ApiError(
      400,
      'channel_unavailable',
      caller.environment === 'live'
        ? `Channel ${channel.id} has no live rail configured; it is paused in the live environment`
        : `Channel ${channel.id} is paused while a provider on the rail is degraded; try again later`,
      p('channel'),
    );
  }

  // Recipient.
  let recipientId: string | null = null;
  let recipientType: RecipientType;
  let recipientDetails: Record<string, unknown>;
  if (isGiven(req.recipientId)) {
    const id = req.recipientId as string;
    const r = await core.db
      .selectFrom('recipients')
      .select(['id', 'type', 'details', 'status', 'missing_fields', 'channels'])
      .where('id', '=', id)
      .where('business_id', '=', caller.businessId)
      .where('environment', '=', caller.environment)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!r) throw notFound('recipient', id, p('recipient_id'));
    const type = r.type as RecipientType;
    if (!channelAcceptsRecipientType(channel, type)) {
      const accepted = channel.id === 'claim_link' ? 'phone or email' : channel.recipient_type;
      throw validationError(p('recipient_id'), `Recipient ${id} is a ${type} recipient; channel ${channel.id} pays ${accepted} recipients`);
    }
    if (r.status !== 'ready') {
      throw new ApiError(
        422,
        'recipient_not_ready',
        `Recipient ${id} is missing fields: ${r.missing_fields.join(', ')}`,
        p('recipient_id'),
        { missing_fields: r.missing_fields },
      );
    }
    if (!r.channels.includes(channel.id)) {
      throw new ApiError(
        422,
        'recipient_not_ready',
        `Recipient ${id} cannot be paid on ${channel.id}; it can be paid on: ${r.channels.join(', ') || 'no channel'}`,
        p('recipient_id'),
      );
    }
    recipientId = r.id;
    recipientType = type;
    recipientDetails = r.details;
  } else {
    const v = prefixed(pre, () => validateInlineRecipient(req.recipient as InlineRecipient, channel));
    recipientType = v.type;
    recipientDetails = v.details;
  }

  // Price: the quote's, or now at the mid-market rate.
  let price: Price;
  let quoteId: string | null = null;
  if (isGiven(req.quoteId)) {
    const id = req.quoteId as string;
    const q = await core.db
      .selectFrom('quotes')
      .selectAll()
      .where('id', '=', id)
      .where('business_id', '=', caller.businessId)
      .where('environment', '=', caller.environment)
      .executeTakeFirst();
    if (!q) throw notFound('quote', id, p('quote_id'));
    if (q.channel !== channel.id) {
      throw validationError(p('quote_id'), `Quote ${id} prices channel ${q.channel}, not ${channel.id}`);
    }
    if (q.expires_at.getTime() <= core.now().getTime()) {
      throw new ApiError(410, 'quote_expired', `Quote ${id} expired at ${q.expires_at.toISOString()}; create a new quote`, p('quote_id'));
    }
    if (s.sourceMinor !== undefined && s.sourceMinor !== q.source_amount) {
      throw validationError(p('source_amount'), `source_amount must match quote ${id} (${formatAmount(q.source_amount, USDC)}) or be left out`);
    }
    if (s.destinationMinor !== undefined && s.destinationMinor !== q.destination_amount) {
      throw validationError(
        p('destination_amount'),
        `destination_amount must match quote ${id} (${formatAmount(q.destination_amount, q.destination_currency)}) or be left out`,
      );
    }
    quoteId = q.id;
    price = {
      sourceAmount: q.source_amount,
      sourceCurrency: 'USDC',
      destinationAmount: q.destination_amount,
      destinationCurrency: q.destination_currency,
      rate: q.rate,
      fees: { provider: q.fee_provider, service: q.fee_service, fxSpread: q.fee_fx_spread, total: q.fee_total },
      debitTotal: q.source_amount + q.fee_total,
    };
  } else {
    price = prefixed(pre, () =>
      priceOf({
        channel,
        midRate: midRate(channel.currency),
        ...(s.sourceMinor !== undefined ? { sourceAmount: s.sourceMinor } : { destinationAmount: s.destinationMinor }),
      }),
    );
  }

  return {
    channel,
    recipientId,
    recipientType,
    recipientDetails,
    quoteId,
    price,
    reference: s.reference,
    memo: s.memo,
    message: s.message,
  };
}

// ---------------------------------------------------------------------------------------------
// Acceptance

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
}

/**
 * Accepts a prepared payout inside the caller's transaction (DESIGN rules 2, 3, 5): inserts the
 * payout row (receipt token random; attempts 1 when submitted), the hold `payout:{id}:hold`
 * (available -> held, debit_total) when funding is 'balance', the payout.submitted event (dedupe
 * `payout:{id}:submitted`) when submitted, and the workflow start when `startWorkflow`.
 * Throws ApiError 402 insufficient_balance when the available balance does not cover debit_total
 * (the caller's transaction must roll back), and Error for a pending payout with startWorkflow
 * (a pending payout is started when it becomes submitted: transitionPayout + payoutStart).
 */
export async function insertPayout(
  tx: DbOrTx,
  core: Core,
  caller: Caller,
  prepared: PreparedPayout,
  opts: InsertPayoutOptions,
): Promise<{ id: string; row: PayoutRow }> {
  const id = opts.id ?? newId('po');
  const status = opts.status ?? 'submitted';
  if (status === 'pending' && opts.startWorkflow) {
    throw new Error('insertPayout: a pending payout starts its workflow when it becomes submitted');
  }
  const now = core.now();
  const pr = prepared.price;

  if (opts.funding === 'balance') {
    try {
      await post(tx, {
        businessId: caller.businessId,
        environment: caller.environment,
        key: `payout:${id}:hold`,
        from: 'available',
        to: 'held',
        amount: pr.debitTotal,
      });
    } catch (e) {
      if (e instanceof InsufficientFundsError) {
        const balance = await getBalance(tx, caller.businessId, caller.environment);
        throw insufficientBalance(pr.debitTotal, balance.available);
      }
      throw e;
    }
  }

  const values: Insertable<PayoutsTable> = {
    id,
    business_id: caller.businessId,
    environment: caller.environment,
    status,
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
    reference: prepared.reference,
    memo: prepared.memo,
    message: prepared.message,
    quote_id: prepared.quoteId,
    idempotency_key: opts.idempotencyKey ?? null,
    estimated_arrival: new Date(now.getTime() + parseDuration(prepared.channel.arrival.max)),
    delivered_at: null,
    provider_reference: null,
    failure_code: null,
    failure_message: null,
    attempt_count: status === 'submitted' ? 1 : 0,
    claim_token: null,
    claimed_at: null,
    claim_method: null,
    claim_expires_at: null,
    receipt_token: randomToken(18),
    confirmed_received_at: null,
    disbursement_id: opts.disbursementId ?? null,
    disbursement_item_id: opts.disbursementItemId ?? null,
    created_by_key_id: caller.keyId,
    created_at: now,
    updated_at: now,
  };
  const row = await tx.insertInto('payouts').values(values).returningAll().executeTakeFirstOrThrow();

  if (status === 'submitted') await emitPayoutEvent(tx, core, row, 'submitted');
  if (opts.startWorkflow) await enqueueWorkflowStart(tx, payoutStart(row));
  return { id, row };
}

/**
 * The workflow start of a payout (DESIGN "Temporal conventions"): type 'payoutWorkflow', id = the
 * payout id, args `[{payoutId, channel}]`, search attributes BusinessId, Environment,
 * PayoutStatus, Channel and DisbursementId when the payout belongs to a disbursement.
 */
export function payoutStart(row: Pick<PayoutRow, 'id' | 'business_id' | 'environment' | 'status' | 'channel' | 'disbursement_id'>): PendingStart {
  const input: PayoutWorkflowInput = { payoutId: row.id, channel: row.channel };
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

function isUniqueViolation(err: unknown): boolean {
  return !!err && typeof err === 'object' && (err as { code?: unknown }).code === '23505';
}

async function findByIdempotencyKey(core: Core, caller: Caller, key: string): Promise<PayoutRow | undefined> {
  return core.db
    .selectFrom('payouts')
    .selectAll()
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** Starts the recorded workflow now; if Temporal is unreachable the worker's relay starts it later. */
async function flushSoon(core: Core, payoutId: string): Promise<void> {
  try {
    await flushWorkflowStart(core, payoutId);
  } catch (err) {
    core.log.warn({ err, payoutId }, 'payout workflow start deferred to the relay');
  }
}

/**
 * POST /payouts (spec "Endpoints", Surface A): prepares, then in one transaction inserts the
 * payout with its hold, event and workflow start (funding 'balance'), then starts the workflow
 * after commit. Returns the Payout as created (status submitted, attempts 1). If a payout with this
 * idempotency key already exists for the business and environment (a process died before the
 * idempotency record was completed), returns that payout instead of creating a second one.
 * Errors: those of {@link preparePayout}, and 402 insufficient_balance.
 */
export async function createPayout(
  core: Core,
  caller: Caller,
  req: PayoutRequest,
  opts: { idempotencyKey?: string } = {},
): Promise<WirePayout> {
  const key = opts.idempotencyKey;
  const existing = key ? await findByIdempotencyKey(core, caller, key) : undefined;
  if (existing) {
    await flushSoon(core, existing.id);
    return renderPayout(existing, undefined, core.config.publicUrl);
  }
  const prepared = await preparePayout(core, caller, req);
  let row: PayoutRow;
  try {
    row = await core.db.transaction().execute(async (tx) => {
      const r = await insertPayout(tx, core, caller, prepared, { idempotencyKey: key, funding: 'balance', startWorkflow: true });
      return r.row;
    });
  } catch (err) {
    if (key && isUniqueViolation(err)) {
      const winner = await findByIdempotencyKey(core, caller, key);
      if (winner) {
        await flushSoon(core, winner.id);
        return renderPayout(winner, undefined, core.config.publicUrl);
      }
    }
    throw err;
  }
  await flushSoon(core, row.id);
  return renderPayout(row, undefined, core.config.publicUrl);
}

// ---------------------------------------------------------------------------------------------
// Reading

/** One element of `attempt_history` (extension; the spec leaves the element fields open). */
export interface WireAttempt {
  number: number;
  status: 'processing' | 'succeeded' | 'failed';
  started_at: string;
  completed_at: string | null;
  provider_reference: string | null;
  error: { code: string; message: string } | null;
}

/** Spec "Payout" on Surface A (snake_case, Amounts as decimal strings, timestamps ISO 8601 UTC), plus documented extensions. */
export interface WirePayout {
  id: string;
  object: 'payout';
  status: PayoutStatus;
  channel: string;
  recipient_id: string | null;
  /** Extension: the destination, masked (`{type, ...fields}`). */
  recipient: Record<string, unknown>;
  source_amount: string;
  source_currency: string;
  destination_amount: string;
  destination_currency: string;
  rate: string;
  fees: WireFees;
  reference: string | null;
  memo: string | null;
  message: string | null;
  quote_id: string | null;
  estimated_arrival: string | null;
  delivered_at: string | null;
  provider_reference: string | null;
  failure: { code: PayoutFailureCode; message: string } | null;
  /** Delivery attempts begun or scheduled (1 from acceptance). */
  attempts: number;
  /** Only on GET /payouts/{id}: the rail calls made so far. */
  attempt_history?: WireAttempt[];
  /** Extension, claim_link payouts only: the recipient's claim link and its state. */
  claim: { url: string | null; expires_at: string | null; claimed_at: string | null; method: string | null } | null;
  /** Extension: the disbursement this payout is an item of, or null. */
  disbursement_id: string | null;
  created_at: string;
  updated_at: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The spec's Payout wire object of a row. With `attempts` (rows of payout_attempts) it adds
 * `attempt_history` (GET /payouts/{id}); `publicUrl` fills `claim.url` of claim links
 * (`{publicUrl}/c/<claim token>`).
 */
export function renderPayout(row: PayoutRow, attempts?: PayoutAttemptRow[], publicUrl?: string): WirePayout {
  const fees: WireFees = {
    provider: formatAmount(row.fee_provider, USDC),
    service: formatAmount(row.fee_service, USDC),
    fx_spread: formatAmount(row.fee_fx_spread, USDC),
    total: formatAmount(row.fee_total, USDC),
    currency: 'USDC',
  };
  const out: WirePayout = {
    id: row.id,
    object: 'payout',
    status: row.status as PayoutStatus,
    channel: row.channel,
    recipient_id: row.recipient_id,
    recipient: {
      type: row.recipient_type,
      ...maskRecipientDetails(row.recipient_type as RecipientType, row.recipient_details),
    },
    source_amount: formatAmount(row.source_amount, row.source_currency),
    source_currency: row.source_currency,
    destination_amount: formatAmount(row.destination_amount, row.destination_currency),
    destination_currency: row.destination_currency,
    rate: row.rate,
    fees,
    reference: row.reference,
    memo: row.memo,
    message: row.message,
    quote_id: row.quote_id,
    estimated_arrival: iso(row.estimated_arrival),
    delivered_at: iso(row.delivered_at),
    provider_reference: row.provider_reference,
    failure: row.failure_code
      ? { code: row.failure_code as PayoutFailureCode, message: row.failure_message ?? row.failure_code }
      : null,
    attempts: row.attempt_count,
    claim:
      row.channel === 'claim_link'
        ? {
            url: row.claim_token && publicUrl ? `${publicUrl}/c/${row.claim_token}` : null,
            expires_at: iso(row.claim_expires_at),
            claimed_at: iso(row.claimed_at),
            method: row.claim_method,
          }
        : null,
    disbursement_id: row.disbursement_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
  if (attempts) {
    out.attempt_history = [...attempts]
      .sort((a, b) => a.number - b.number)
      .map((a) => ({
        number: a.number,
        status: a.status,
        started_at: a.started_at.toISOString(),
        completed_at: iso(a.completed_at),
        provider_reference: a.provider_reference,
        error: a.error_code ? { code: a.error_code, message: a.error_message ?? a.error_code } : null,
      }));
  }
  return out;
}

/** The payout row with this id in the caller's business and environment; 404 not_found (param `id`) otherwise. */
export async function getPayoutRow(db: DbOrTx, caller: Caller, id: string): Promise<PayoutRow> {
  const row = await db
    .selectFrom('payouts')
    .selectAll()
    .where('id', '=', id)
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .executeTakeFirst();
  if (!row) throw notFound('payout', id);
  return row;
}

/** GET /payouts/{id}: the Payout with `attempt_history`. 404 not_found (param `id`) for an unknown or other tenant's id. */
export async function getPayout(core: Core, caller: Caller, id: string): Promise<WirePayout> {
  const row = await getPayoutRow(core.db, caller, id);
  const attempts = await core.db.selectFrom('payout_attempts').selectAll().where('payout_id', '=', id).orderBy('number').execute();
  return renderPayout(row, attempts, core.config.publicUrl);
}

/** Filters and page of GET /payouts (spec: status, channel, since, limit 1..200, cursor). */
export interface ListPayoutsQuery {
  status?: PayoutStatus;
  channel?: string;
  /** Only payouts created at or after this instant. */
  since?: Date;
  limit: number;
  cursor?: string;
}

/** GET /payouts: newest first, cursor paging (src/api/pagination.ts). 400 validation_error (`cursor`) for a foreign cursor. */
export async function listPayouts(core: Core, caller: Caller, q: ListPayoutsQuery): Promise<ListEnvelope<WirePayout>> {
  let query = core.db
    .selectFrom('payouts')
    .selectAll()
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.channel) query = query.where('channel', '=', q.channel);
  if (q.since) query = query.where('created_at', '>=', q.since);
  const page = await paginate(query, 'id', { limit: q.limit, cursor: q.cursor });
  return { data: page.rows.map((r) => renderPayout(r, undefined, core.config.publicUrl)), next_cursor: page.next_cursor };
}

/** Spec "Receipt": the shareable receipt address and when delivery was confirmed. */
export interface WireReceipt {
  url: string;
  confirmed_received_at: string | null;
}

/** GET /payouts/{id}/receipt: `{url: {publicUrl}/r/<receipt token>, confirmed_received_at}`. 404 as getPayout. */
export async function getPayoutReceipt(core: Core, caller: Caller, id: string): Promise<WireReceipt> {
  const row = await getPayoutRow(core.db, caller, id);
  return { url: `${core.config.publicUrl}/r/${row.receipt_token}`, confirmed_received_at: iso(row.confirmed_received_at) };
}

/** The payout behind a public receipt token (any business or environment), or undefined. */
export async function findPayoutByReceiptToken(db: DbOrTx, token: string): Promise<PayoutRow | undefined> {
  return db.selectFrom('payouts').selectAll().where('receipt_token', '=', token).executeTakeFirst();
}

// ---------------------------------------------------------------------------------------------
// Transitions (called by the activities; each is one transaction, idempotent, table-guarded)

/** A move the transition table does not allow (a bug in the caller; activities do not retry it). */
export class IllegalPayoutTransitionError extends Error {
  constructor(
    readonly payoutId: string,
    readonly from: string,
    readonly to: PayoutStatus,
  ) {
    super(`payout ${payoutId}: illegal transition ${from} -> ${to}`);
    this.name = 'IllegalPayoutTransitionError';
  }
}

/** The result of one finished delivery attempt (defined by the payout workflow's contract). */
export type { AttemptResult };

/** What a transition may also set on the payout (all optional). */
export interface TransitionPatch {
  /** failure.code / failure.message (-> failed, -> refunded). */
  failure?: { code: PayoutFailureCode; message: string };
  providerReference?: string | null;
  /** Claim link token and expiry (-> awaiting_claim). */
  claim?: { token: string; expiresAt: Date };
  /** The method the recipient chose (-> claimed). */
  claimMethod?: string;
  /** Finishes this attempt in the same transaction. */
  attempt?: AttemptResult & { number: number };
}

/** Ledger movement applied on entering a state (see the file header). */
const MONEY_ON_ENTER: Partial<Record<PayoutStatus, { name: string; from: Account; to: Account }>> = {
  succeeded: { name: 'settle', from: 'held', to: 'sent' },
  failed: { name: 'release', from: 'held', to: 'available' },
  canceled: { name: 'release', from: 'held', to: 'available' },
  refunded: { name: 'refund', from: 'sent', to: 'available' },
};

async function emitPayoutEvent(tx: DbOrTx, core: Core, row: PayoutRow, status: PayoutStatus): Promise<void> {
  const type = EVENT_ON_ENTER[status];
  if (!type) return;
  await emitEvent(tx, {
    businessId: row.business_id,
    environment: row.environment,
    type,
    objectType: 'payout',
    objectId: row.id,
    data: renderPayout(row, undefined, core.config.publicUrl) as unknown as Record<string, unknown>,
    dedupeKey: `payout:${row.id}:${status}`,
  });
}

async function finishAttempt(tx: DbOrTx, payoutId: string, number: number, r: AttemptResult, now: Date): Promise<void> {
  const row = await tx
    .selectFrom('payout_attempts')
    .select(['status', 'provider_reference'])
    .where('payout_id', '=', payoutId)
    .where('number', '=', number)
    .executeTakeFirst();
  if (!row) {
    await tx
      .insertInto('payout_attempts')
      .values({
        payout_id: payoutId,
        number,
        status: r.status,
        provider_reference: r.providerReference ?? null,
        error_code: r.errorCode ?? null,
        error_message: r.errorMessage ?? null,
        started_at: now,
        completed_at: now,
      })
      .onConflict((oc) => oc.columns(['payout_id', 'number']).doNothing())
      .execute();
  } else if (row.status === 'processing') {
    await tx
      .updateTable('payout_attempts')
      .set({
        status: r.status,
        provider_reference: r.providerReference ?? row.provider_reference,
        error_code: r.errorCode ?? null,
        error_message: r.errorMessage ?? null,
        completed_at: now,
      })
      .where('payout_id', '=', payoutId)
      .where('number', '=', number)
      .where('status', '=', 'processing')
      .execute();
  }
  await tx
    .updateTable('payouts')
    .set((eb) => ({ attempt_count: eb.fn('greatest', [eb.ref('attempt_count'), eb.val(number)]) }))
    .where('id', '=', payoutId)
    .execute();
}

/**
 * Moves a payout to `to` in one transaction (spec "Payout status"; src/domain/payout-state.ts):
 * locks the row; if it is already `to`, returns it unchanged (idempotent); if the table does not
 * allow the move, throws {@link IllegalPayoutTransitionError}; else updates the projection with
 * `patch`, applies the money movement of the table (settle / release / refund of debit_total,
 * posting keys `payout:{id}:<movement>`), emits EVENT_ON_ENTER[to] (dedupe `payout:{id}:{to}`)
 * and returns the updated row. Entering succeeded sets delivered_at and confirmed_received_at;
 * refunded clears confirmed_received_at; claimed sets claimed_at and claim_method.
 */
export async function transitionPayout(core: Core, payoutId: string, to: PayoutStatus, patch: TransitionPatch = {}): Promise<PayoutRow> {
  return core.db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('payouts').selectAll().where('id', '=', payoutId).forUpdate().executeTakeFirst();
    if (!row) throw new Error(`payout ${payoutId} does not exist`);
    if (row.status === to) return row;
    if (!(PAYOUT_STATUSES as readonly string[]).includes(row.status) || !canTransition(row.status as PayoutStatus, to)) {
      throw new IllegalPayoutTransitionError(payoutId, row.status, to);
    }
    const now = core.now();
    if (patch.attempt) await finishAttempt(tx, payoutId, patch.attempt.number, patch.attempt, now);

    const set: Updateable<PayoutsTable> = { status: to, updated_at: now };
    if (patch.failure) {
      set.failure_code = patch.failure.code;
      set.failure_message = patch.failure.message;
    }
    if (patch.providerReference !== undefined) set.provider_reference = patch.providerReference;
    if (patch.claim) {
      set.claim_token = patch.claim.token;
      set.claim_expires_at = patch.claim.expiresAt;
    }
    if (to === 'claimed') {
      set.claimed_at = now;
      set.claim_method = patch.claimMethod ?? null;
    }
    if (to === 'succeeded') {
      set.delivered_at = now;
      set.confirmed_received_at = now;
    }
    if (to === 'refunded') set.confirmed_received_at = null;
    if (to === 'submitted' && row.attempt_count < 1) set.attempt_count = 1;
    const updated = await tx.updateTable('payouts').set(set).where('id', '=', payoutId).returningAll().executeTakeFirstOrThrow();

    const money = MONEY_ON_ENTER[to];
    if (money) {
      await post(tx, {
        businessId: row.business_id,
        environment: row.environment,
        key: `payout:${payoutId}:${money.name}`,
        from: money.from,
        to: money.to,
        amount: row.debit_total,
      });
    }
    await emitPayoutEvent(tx, core, updated, to);
    return updated;
  });
}

/**
 * Opens the claim of a claim-link payout: submitted -> awaiting_claim with a new random claim
 * token and claim_expires_at = now + `windowMs` (event payout.awaiting_claim). Idempotent: if the
 * payout is already awaiting its claim, nothing changes. Returns the row.
 */
export async function openClaim(core: Core, payoutId: string, windowMs: number): Promise<PayoutRow> {
  const row = await core.db.selectFrom('payouts').selectAll().where('id', '=', payoutId).executeTakeFirst();
  if (row && row.status === 'awaiting_claim') return row;
  return transitionPayout(core, payoutId, 'awaiting_claim', {
    claim: { token: row?.claim_token ?? randomToken(18), expiresAt: new Date(core.now().getTime() + windowMs) },
  });
}

/**
 * Records that delivery attempt `number` started (idempotent upsert of payout_attempts
 * (payout_id, number) in status processing) and raises attempt_count to at least `number`.
 * Returns the attempt row (with the provider reference of an earlier try of the same attempt).
 */
export async function recordAttemptStart(core: Core, payoutId: string, number: number): Promise<PayoutAttemptRow> {
  return core.db.transaction().execute(async (tx) => {
    await tx
      .insertInto('payout_attempts')
      .values({
        payout_id: payoutId,
        number,
        status: 'processing',
        provider_reference: null,
        error_code: null,
        error_message: null,
        started_at: core.now(),
        completed_at: null,
      })
      .onConflict((oc) => oc.columns(['payout_id', 'number']).doNothing())
      .execute();
    await tx
      .updateTable('payouts')
      .set((eb) => ({ attempt_count: eb.fn('greatest', [eb.ref('attempt_count'), eb.val(number)]), updated_at: core.now() }))
      .where('id', '=', payoutId)
      .where('attempt_count', '<', number)
      .execute();
    return tx
      .selectFrom('payout_attempts')
      .selectAll()
      .where('payout_id', '=', payoutId)
      .where('number', '=', number)
      .executeTakeFirstOrThrow();
  });
}

/** Stores the provider reference the rail gave attempt `number` (kept if one is already stored). */
export async function recordAttemptProviderReference(core: Core, payoutId: string, number: number, providerReference: string): Promise<void> {
  await core.db
    .updateTable('payout_attempts')
    .set({ provider_reference: providerReference })
    .where('payout_id', '=', payoutId)
    .where('number', '=', number)
    .where('provider_reference', 'is', null)
    .execute();
}

/**
 * Records the result of attempt `number` (idempotent: an attempt already finished keeps its
 * first result). Used for attempts that are retried; the final attempt is finished by the
 * transition (TransitionPatch.attempt) in the same transaction as the status change.
 */
export async function recordAttemptResult(core: Core, payoutId: string, number: number, result: AttemptResult): Promise<void> {
  await core.db.transaction().execute((tx) => finishAttempt(tx, payoutId, number, result, core.now()));
}

// ---------------------------------------------------------------------------------------------
// Recipient actions (workflow Updates)

/** Claim methods a recipient may choose (sandbox claim endpoint; Surface B payoutMethod). */
export { CLAIM_METHODS, type ClaimMethod } from '../../workflows/payout.contract';

async function updatePayoutWorkflow(
  core: Core,
  caller: Caller,
  id: string,
  allowed: readonly PayoutStatus[],
  run: () => Promise<PayoutUpdateOutcome>,
): Promise<WirePayout> {
  const row = await getPayoutRow(core.db, caller, id);
  const refuse = (status: string) =>
    new ApiError(409, 'invalid_state', `Payout ${id} is ${status}; this needs it to be ${allowed.join(' or ')}`, null);
  if (!allowed.includes(row.status as PayoutStatus)) throw refuse(row.status);
  // Refused by the Update's validator, or the workflow closed meanwhile: report the state now.
  if ((await run()) === 'refused') throw refuse((await getPayoutRow(core.db, caller, id)).status);
  return getPayout(core, caller, id);
}

/**
 * Acts as the recipient of a claim-link payout (sandbox `POST /sandbox/payouts/{id}/claim`):
 * executes the workflow's `claim` Update with the chosen method; the payout moves
 * awaiting_claim -> claimed -> delivering -> ... Returns the payout after the claim.
 * 404 not_found for an unknown id; 409 invalid_state unless the payout is awaiting its claim.
 */
export async function claimPayout(core: Core, caller: Caller, id: string, method: string): Promise<WirePayout> {
  return updatePayoutWorkflow(core, caller, id, ['awaiting_claim'], () => claimPayoutWorkflow(core.temporal, id, method as ClaimMethod));
}

/**
 * Cancels a payout that has not reached the recipient (pending or awaiting_claim) through the
 * workflow's `cancel` Update: status canceled, hold released, event payout.canceled.
 * 404 not_found; 409 invalid_state in any other status.
 */
export async function cancelPayout(core: Core, caller: Caller, id: string): Promise<WirePayout> {
  return updatePayoutWorkflow(core, caller, id, ['pending', 'awaiting_claim'], () => cancelPayoutWorkflow(core.temporal, id));
}
