/**
 * Example figures of the OpenAPI documents, computed by the pricing code from the catalog and the
 * sandbox rates, never typed by hand, so they equal what the sandbox answers. Decimal Amounts, USDC unless named.
 */
import { findChannel } from '../domain/channels';
import { formatAmount, parseAmount, USDC } from '../domain/money';
import { price } from '../domain/pricing';
import { formatFees, type WireFees } from '../wire/surface-a/fees';
import { midRate } from '../sandbox/fx';

/** A priced example: what a quote or payout of `source_amount` on `channel` shows. */
export interface PriceExample {
  channel: string;
  source_amount: string;
  destination_amount: string;
  destination_currency: string;
  rate: string;
  fees: WireFees;
  debit_total: string;
}

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
