/**
 * Pricing of one payout on one channel (spec "Quote", "Channel".fee, "Limits"). Pure and exact:
 * BigInt minor units through src/domain/money.ts, no floating point.
 *
 * Rules:
 * 1. `rate` is the mid-market rate USDC -> destination currency, as given (e.g. "17.05").
 * 2. Fees are charged ON TOP of the source amount, in micro-USDC:
 *    provider = percentOf(source, provider %) + provider flat;
 *    service  = percentOf(source, service %)  + service flat;
 *    fxSpread = percentOf(source, FX spread %);
 *    total    = provider + service + fxSpread;
 *    debitTotal = source + total (what the balance is debited / held).
 *    percentOf rounds up (never charge less than the listed fee), per component.
 * 3. From a source amount: destination = floor(source * rate), in minor units of the destination
 *    currency (never pay out more than the source buys).
 * 4. From a destination amount: source = ceil(destination / rate) in micro-USDC (the recipient gets
 *    at least what was asked; the destination amount stays exactly as asked), then fees on it.
 * 5. The source amount must lie within channel.limits (inclusive, USDC), else 400
 *    amount_out_of_range naming the amount the caller gave (source_amount / destination_amount).
 * 6. Live pricing (`live` given; docs/rates.md "Spreads"): the rate is the live reference rate (bid
 *    side, exact) less the corridor's spread in basis points, truncated to RATE_SCALE decimals
 *    (src/domain/rates.ts); the spread is taken in the rate, so fees.fxSpread shows its cost
 *    (source * bps / 10 000, half up) and is NOT part of fees.total (charged on top) nor debitTotal.
 */
import type { ChannelDefinition } from './channels';
import { ApiError } from './errors';
import { divDecimal, formatAmount, mulDecimal, parseAmount, parseDecimal, percentOf, USDC } from './money';
import { type Fraction, formatRate, lessSpread, spreadCost } from './rates';

/** Input of {@link price}: exactly one of sourceAmount (micro-USDC) / destinationAmount (minor units of channel.currency). */
export interface PriceInput {
  channel: ChannelDefinition;
  /** Mid-market rate USDC -> channel.currency, decimal string (src/sandbox/fx.ts midRate). */
  midRate: string;
  /** Micro-USDC (6 decimals). */
  sourceAmount?: bigint;
  /** Minor units of channel.currency (2 decimals fiat, 0 for JPY/KRW/..., 6 for USDC). */
  destinationAmount?: bigint;
  /** Apply only the channel's minimum (Surface B: "Maximum single disbursement: no limit"). */
  noMaximum?: boolean;
  /**
   * Live pricing (rule 6): the exact bid-side reference rate USDC -> channel.currency and the
   * spread in basis points; `midRate` is then ignored.
   */
  live?: { referenceRate: Fraction; spreadBps: number; source: string; asOf: Date; usableUntil: Date };
}

/** Live pricing facts of a {@link Price}: reference rate (truncated), spread (bps), the rate's source, as-of and end of use. */
export interface LivePricing {
  referenceRate: string;
  spreadBps: number;
  source: string;
  asOf: Date;
  usableUntil: Date;
}

/**
 * A priced payout. Every bigint is micro-USDC except destinationAmount (minor units of
 * destinationCurrency). `rate` is the mid-market rate string.
 */
export interface Price {
  sourceAmount: bigint;
  sourceCurrency: 'USDC';
  destinationAmount: bigint;
  destinationCurrency: string;
  rate: string;
  fees: { provider: bigint; service: bigint; fxSpread: bigint; total: bigint };
  debitTotal: bigint;
  /** Live pricing only: the reference rate before the spread (truncated) and the spread in bps. */
  live?: LivePricing;
}

/**
 * Prices a payout on `channel` (rules in the file header). Throws Error when not exactly one of
 * sourceAmount / destinationAmount is given, or for a non-positive amount or rate (programming
 * errors: the API validates first); throws ApiError(400, 'amount_out_of_range', ..., param) when
 * the source amount is outside channel.limits (only below the minimum with `noMaximum`), param
 * 'source_amount' or 'destination_amount'.
 */
export function price(input: PriceInput): Price {
  const { channel, sourceAmount, destinationAmount, live } = input;
  if ((sourceAmount === undefined) === (destinationAmount === undefined)) {
    throw new Error('price: give exactly one of sourceAmount and destinationAmount');
  }
  const rateString = live ? formatRate(lessSpread(live.referenceRate, live.spreadBps)) : input.midRate;
  const rate = parseDecimal(rateString);
  if (rate.digits <= 0n) throw new Error(`price: rate must be positive, got "${rateString}"`);

  let source: bigint;
  let destination: bigint;
  let param: 'source_amount' | 'destination_amount';
  if (sourceAmount !== undefined) {
    if (sourceAmount <= 0n) throw new Error('price: sourceAmount must be positive');
    source = sourceAmount;
    destination = mulDecimal(source, rate, USDC, channel.currency, 'floor');
    param = 'source_amount';
  } else {
    const dest = destinationAmount as bigint;
    if (dest <= 0n) throw new Error('price: destinationAmount must be positive');
    destination = dest;
    source = divDecimal(destination, rate, USDC, channel.currency, 'ceil');
    param = 'destination_amount';
  }

  const min = parseAmount(channel.limits.min, USDC);
  const max = parseAmount(channel.limits.max, USDC);
  if (source < min || (source > max && !input.noMaximum)) {
    const range = `between ${formatAmount(min, USDC)} and ${formatAmount(max, USDC)} USDC`;
    const message =
      param === 'source_amount'
        ? `source_amount on ${channel.id} must be ${range}`
        : `destination_amount on ${channel.id} needs a source amount of ${formatAmount(source, USDC)} USDC; it must be ${range}`;
    throw new ApiError(400, 'amount_out_of_range', message, param);
  }

  const flat = (v: string) => parseAmount(v, USDC, { allowZero: true });
  const provider = percentOf(source, channel.provider_fee.percent) + flat(channel.provider_fee.flat);
  const service = percentOf(source, channel.service_fee.percent) + flat(channel.service_fee.flat);
  const fxSpread = live ? spreadCost(source, live.spreadBps) : percentOf(source, channel.fx_spread_percent);
  const total = live ? provider + service : provider + service + fxSpread;

  return {
    sourceAmount: source,
    sourceCurrency: 'USDC',
    destinationAmount: destination,
    destinationCurrency: channel.currency,
    rate: rateString,
    fees: { provider, service, fxSpread, total },
    debitTotal: source + total,
    ...(live ? { live: { referenceRate: formatRate(live.referenceRate), spreadBps: live.spreadBps, source: live.source, asOf: live.asOf, usableUntil: live.usableUntil } } : {}),
  };
}

/** Spec "Shared types" Fees on the wire: USDC Amounts as decimal strings ("1.40"), currency 'USDC'. */
export interface WireFees {
  provider: string;
  service: string;
  fx_spread: string;
  total: string;
  currency: 'USDC';
}

/** The wire Fees object of a {@link Price} (decimal strings via formatAmount, USDC). */
export function formatFees(p: Price): WireFees {
  return {
    provider: formatAmount(p.fees.provider, USDC),
    service: formatAmount(p.fees.service, USDC),
    fx_spread: formatAmount(p.fees.fxSpread, USDC),
    total: formatAmount(p.fees.total, USDC),
    currency: 'USDC',
  };
}

/**
 * Live rate provenance on the wire (extension; docs/rates.md "On the wire"), present on live quotes,
 * payouts and deposits only: the reference rate before the spread (what the sources gave, Stripe's
 * `reference_rate`), its source (`ecb+kraken`: the ECB cross with USDC/USD from Kraken) and as-of
 * time (ISO 8601 UTC), and the spread taken in `rate`, in basis points.
 */
export interface WireRateDetails {
  reference_rate: string;
  source: string;
  as_of: string;
  spread_bps: number;
}

/** The wire {@link WireRateDetails} of live pricing facts. */
export function formatRateDetails(l: Pick<LivePricing, 'referenceRate' | 'source' | 'asOf' | 'spreadBps'>): WireRateDetails {
  return { reference_rate: l.referenceRate, source: l.source, as_of: l.asOf.toISOString(), spread_bps: l.spreadBps };
}
