/** Surface A's fee and rate-provenance objects (spec "Shared types" Fees; docs/rates.md "On the wire"), rendered from the domain's prices. */
import type { DepositConversion } from '../../domain/funding';
import { formatAmount, USDC } from '../../domain/money';
import type { LivePricing, Price } from '../../domain/pricing';

/** Spec "Shared types" Fees: USDC decimal strings. */
export interface WireFees {
  provider: string;
  service: string;
  fx_spread: string;
  total: string;
  currency: 'USDC';
}

/** Fees of a price as USDC decimal strings. */
export function formatFees(p: Price): WireFees {
  return {
    provider: formatAmount(p.fees.provider, USDC),
    service: formatAmount(p.fees.service, USDC),
    fx_spread: formatAmount(p.fees.fxSpread, USDC),
    total: formatAmount(p.fees.total, USDC),
    currency: 'USDC',
  };
}

/** Live rate provenance on the wire (docs/rates.md "On the wire"). */
export interface WireRateDetails {
  reference_rate: string;
  source: string;
  as_of: string;
  spread_bps: number;
}

/** A live price's provenance: `as_of` ISO 8601. */
export function formatRateDetails(l: Pick<LivePricing, 'referenceRate' | 'source' | 'asOf' | 'spreadBps'>): WireRateDetails {
  return { reference_rate: l.referenceRate, source: l.source, as_of: l.asOf.toISOString(), spread_bps: l.spreadBps };
}

/** Deposit fees on the wire (USDC decimal strings). */
export interface WireDepositFees {
  fx_spread: string;
  processing: string;
  total: string;
  currency: 'USDC';
}

/** A deposit conversion's fees as USDC decimal strings. */
export function formatDepositFees(f: DepositConversion['fees']): WireDepositFees {
  return { fx_spread: formatAmount(f.fxSpread, USDC), processing: formatAmount(f.processing, USDC), total: formatAmount(f.total, USDC), currency: 'USDC' };
}
