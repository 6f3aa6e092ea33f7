/**
 * Example figures of the served OpenAPI documents, computed by the pricing code from the catalog
 * and the sandbox rates (src/domain/pricing.ts `price`, src/domain/channel-catalog.ts,
 * src/sandbox/fx.ts), never typed by hand, so that an example's fees, rate and destination amount
 * are what the sandbox answers for the same request (test/api/openapi-examples.test.ts compares
 * them with a real sandbox quote). Wire strings: decimal Amounts, USDC unless named.
 */
import { findChannel } from '../domain/channels';
import { formatAmount, parseAmount, USDC } from '../domain/money';
import { formatFees, price, type WireFees } from '../domain/pricing';
import { midRate } from '../sandbox/fx';

/** A priced example: what a quote or payout of `source_amount` on `channel` shows. */
export interface PriceExample {
  channel: string;
  source_amount: string;
  destination_amount: string;
  destination_currency: string;
  rate: string;
  fees: WireFees;
  /** source_amount + fees.total (USDC). */
  debit_total: string;
}

/** The example of `channelId` given either the USDC source amount or the destination amount. */
function priceExample(channelId: string, amount: { source: string } | { destination: string }): PriceExample {
  const channel = findChannel(channelId);
  if (!channel) throw new Error(`examples: no channel ${channelId} in the catalog`);
  const p = price({
    channel,
    midRate: midRate(channel.currency),
    ...('source' in amount ? { sourceAmount: parseAmount(amount.source, USDC) } : { destinationAmount: parseAmount(amount.destination, channel.currency) }),
    noMaximum: true,
  });
  return {
    channel: channel.id,
    source_amount: formatAmount(p.sourceAmount, USDC),
    destination_amount: formatAmount(p.destinationAmount, p.destinationCurrency),
    destination_currency: p.destinationCurrency,
    rate: p.rate,
    fees: formatFees(p),
    debit_total: formatAmount(p.debitTotal, USDC),
  };
}

/** Surface A's example: 100 USDC to Mexico over SPEI (`spei_mxn`), as README "Your first payout". */
export const SPEI_MXN_100 = priceExample('spei_mxn', { source: '100' });

/** Surfaces B and C's example: a 25.00 USD claim link (`claim_link`), the recipient's amount. */
export const CLAIM_LINK_25 = priceExample('claim_link', { destination: '25.00' });
