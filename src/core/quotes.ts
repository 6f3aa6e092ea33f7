/**
 * Quotes (spec "Quote"; Surface A `POST /quotes`), valid 60 s. Rows: source and fees in micro-USDC,
 * destination_amount in minor units of destination_currency.
 */
import { findChannel } from '../domain/channels';
import { ApiError, validationError } from '../domain/errors';
import { newId } from '../domain/ids';
import { parseAmountParam, USDC } from '../domain/money';
import { type Price, price } from '../domain/pricing';
import type { Selectable } from 'kysely';
import type { QuotesTable } from '../db/tables/catalog';
import type { LiveRateColumns } from '../db/tables/rates';
import { assertChannelAvailable, knownChannel } from './catalog';
import type { Caller, Core } from './context';
import { freshRateCache } from './rates/cache';
import { pricingRate } from './rates/pricing-rate';
import { scoped } from './tenancy';

export const QUOTE_TTL_MS = 60_000;

/**
 * `POST /quotes` body (spec "Quote") in core form: a channel id and exactly one amount, decimal strings as
 * given on the wire (sourceAmount USDC, destinationAmount in the channel's currency).
 */
export interface PriceRequest {
  channel: string;
  sourceAmount?: string;
  destinationAmount?: string;
}

export interface PricedRequest {
  channel: ReturnType<typeof knownChannel>;
  price: Price;
  fixedSide: 'source' | 'destination';
}

/** Amounts in {@link Price} units. */
export interface QuoteRecord {
  id: string;
  channel: string;
  price: Price;
  fixedSide: 'source' | 'destination';
  arrival: { min: string; max: string };
  createdAt: Date;
  expiresAt: Date;
}

/**
 * Validates and prices without storing. 400 validation_error (param `channel` or the amount), 400
 * channel_unavailable, 400 amount_out_of_range.
 */
export function priceRequest(core: Core, caller: Caller, input: PriceRequest): PricedRequest {
  const channel = knownChannel(input.channel, 'channel');
  const hasSource = input.sourceAmount !== undefined && input.sourceAmount !== null;
  const hasDestination = input.destinationAmount !== undefined && input.destinationAmount !== null;
  if (hasSource && hasDestination) {
    throw validationError('destination_amount', 'Give either source_amount or destination_amount, not both');
  }
  if (!hasSource && !hasDestination) {
    throw validationError('source_amount', 'source_amount or destination_amount is required');
  }
  const sourceAmount = hasSource ? parseAmountParam(input.sourceAmount, USDC, 'source_amount') : undefined;
  const destinationAmount = hasDestination
    ? parseAmountParam(input.destinationAmount, channel.currency, 'destination_amount')
    : undefined;
  assertChannelAvailable(core, caller, channel, 'channel');
  const p = price({ channel, ...pricingRate(core, caller, channel), sourceAmount, destinationAmount });
  return { channel, price: p, fixedSide: hasSource ? 'source' : 'destination' };
}

/** `POST /quotes`: {@link priceRequest} (same errors), stored for the caller, valid 60 s. */
export async function createQuote(core: Core, caller: Caller, input: PriceRequest): Promise<QuoteRecord> {
  if (caller.environment === 'live') await freshRateCache(core);
  const priced = priceRequest(core, caller, input);
  const createdAt = core.now();
  const expiresAt = new Date(createdAt.getTime() + QUOTE_TTL_MS);
  const id = newId('qt', createdAt.getTime());
  const p = priced.price;
  await core.db
    .insertInto('quotes')
    .values({
      id,
      business_id: caller.businessId,
      environment: caller.environment,
      channel: priced.channel.id,
      source_amount: p.sourceAmount,
      destination_amount: p.destinationAmount,
      destination_currency: p.destinationCurrency,
      rate: p.rate,
      fee_provider: p.fees.provider,
      fee_service: p.fees.service,
      fee_fx_spread: p.fees.fxSpread,
      fee_total: p.fees.total,
      fixed_side: priced.fixedSide,
      ...liveRateColumns(p),
      expires_at: expiresAt,
      created_at: createdAt,
    })
    .execute();
  return {
    id,
    channel: priced.channel.id,
    price: p,
    fixedSide: priced.fixedSide,
    arrival: { ...priced.channel.arrival },
    createdAt,
    expiresAt,
  };
}

export function quoteFromRow(row: Selectable<QuotesTable>): QuoteRecord {
  const fees = { provider: row.fee_provider, service: row.fee_service, fxSpread: row.fee_fx_spread, total: row.fee_total };
  const channel = findChannel(row.channel);
  if (!channel) throw new Error(`Quote ${row.id} names channel '${row.channel}', which is not in the catalog`);
  return {
    id: row.id,
    channel: row.channel,
    price: {
      sourceAmount: row.source_amount,
      sourceCurrency: 'USDC',
      destinationAmount: row.destination_amount,
      destinationCurrency: row.destination_currency,
      rate: row.rate,
      fees,
      debitTotal: row.source_amount + row.fee_total,
      ...livePricingOf(row),
    },
    fixedSide: row.fixed_side,
    arrival: { ...channel.arrival },
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

/** The caller's quote, or undefined; expiry is not checked. */
export async function findQuote(core: Core, caller: Caller, id: string): Promise<QuoteRecord | undefined> {
  const row = await scoped(core.db, caller)
    .selectFrom('quotes')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? quoteFromRow(row) : undefined;
}

/** Throws 410 quote_expired (param `param`). */
export function assertQuoteFresh(quote: QuoteRecord, now: Date, param = 'quote_id'): void {
  if (now.getTime() >= quote.expiresAt.getTime()) {
    throw new ApiError(410, 'quote_expired', `Quote ${quote.id} expired at ${quote.expiresAt.toISOString()}; create a new one`, param);
  }
}

/** Live-rate columns of a {@link Price}; all null for a sandbox price. */
export function liveRateColumns(p: Price): LiveRateColumns {
  const l = p.live;
  return {
    rate_source: l?.source ?? null,
    rate_as_of: l?.asOf ?? null,
    rate_usable_until: l?.usableUntil ?? null,
    reference_rate: l?.referenceRate ?? null,
    fx_spread_bps: l?.spreadBps ?? null,
  };
}

export function livePricingOf(row: LiveRateColumns): Pick<Price, 'live'> {
  if (row.rate_source === null || row.rate_as_of === null || row.reference_rate === null || row.fx_spread_bps === null) return {};
  return {
    live: {
      referenceRate: row.reference_rate,
      spreadBps: row.fx_spread_bps,
      source: row.rate_source,
      asOf: row.rate_as_of,
      usableUntil: row.rate_usable_until ?? row.rate_as_of,
    },
  };
}
