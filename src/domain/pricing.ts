/**
 * Pricing of one payout on one channel (spec "Quote", "Channel".fee, "Limits"); BigInt minor units.
 * - Fees are on top of the source amount, micro-USDC, each percentage rounded up; debitTotal = source + total.
 * - From source: destination = floor(source * rate). From destination: source = ceil(destination / rate).
 * - The source must lie within channel.limits, else 400 amount_out_of_range (param: the amount given).
 * - Live (docs/rates.md "Spreads"): rate = bid reference less the spread in bps; fxSpread shows its
 *   cost but is not in fees.total nor debitTotal.
 */
import type { ChannelDefinition } from './channels';
import { ApiError } from './errors';
import { divDecimal, formatAmount, mulDecimal, parseAmount, parseDecimal, percentOf, USDC } from './money';
import { type Fraction, formatRate, lessSpread, spreadCost } from './rates';

/** Exactly one of sourceAmount (micro-USDC) / destinationAmount (minor units of channel.currency). */
export interface PriceInput {
  channel: ChannelDefinition;
  /** Decimal string, USDC -> channel.currency. */
  midRate: string;
  sourceAmount?: bigint;
  destinationAmount?: bigint;
  /** Apply only the channel's minimum (Surface B has no maximum). */
  noMaximum?: boolean;
  /** Live pricing: bid-side reference rate and spread in bps; `midRate` is then ignored. */
  live?: { referenceRate: Fraction; spreadBps: number; source: string; asOf: Date; usableUntil: Date };
}

export interface LivePricing {
  referenceRate: string;
  spreadBps: number;
  source: string;
  asOf: Date;
  usableUntil: Date;
}

/** A priced payout: bigints in micro-USDC except destinationAmount (minor units of destinationCurrency). */
export interface Price {
  sourceAmount: bigint;
  sourceCurrency: 'USDC';
  destinationAmount: bigint;
  destinationCurrency: string;
  rate: string;
  fees: { provider: bigint; service: bigint; fxSpread: bigint; total: bigint };
  debitTotal: bigint;
  live?: LivePricing;
}

/**
 * Prices a payout on `channel` (rules above). Throws Error for a programming error (not exactly one
 * amount, non-positive amount or rate); ApiError 400 amount_out_of_range outside channel.limits.
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
  const provider = percentOf(source, channel.providerFee.percent) + flat(channel.providerFee.flat);
  const service = percentOf(source, channel.serviceFee.percent) + flat(channel.serviceFee.flat);
  const fxSpread = live ? spreadCost(source, live.spreadBps) : percentOf(source, channel.fxSpreadPercent);
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

