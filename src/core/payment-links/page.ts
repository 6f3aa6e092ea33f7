/** What the public payment page shows (docs/getting-paid.md "Public page"); the page token is the capability. */
import type { DbOrTx, Environment } from '../../db/schema';
import type { PaymentMethodType, PaymentRequestStatus, VirtualAccountDetails } from '../../domain/funding';
import type { Config } from '../../config';
import { formatAmount, USDC } from '../../domain/money';
import { solanaNetworkFor } from '../../solana/network';
import { ensureDepositAddressRow } from '../funding/crypto-addresses';
import { activeVirtualAccounts } from '../funding/virtual-accounts';
import { findPublishedLinkByToken, methodReadiness } from './payment-links';
import { findPaymentRequestByToken } from './payment-requests';

export interface PageAccount {
  currency: string;
  rail: string;
  referenceRequired: boolean;
  details: VirtualAccountDetails;
}

export interface PaymentPage {
  environment: Environment;
  businessName: string;
  linkName: string;
  /** Ready now, in the link's order. */
  readyMethods: PaymentMethodType[];
  /** For a request: those in its currency. */
  accounts: PageAccount[];
  request: { amount: string; currency: string; reference: string; status: PaymentRequestStatus; expiresAt: Date } | null;
  /** The deposit address when crypto is offered; `amount` in USDC for a USD request, else null. */
  crypto: { address: string; network: string; amount: string | null; minimumDeposit: string } | null;
  /** When card is ready (live, a card processor): the request's amount and currency, or null amount (the payer enters USD). */
  card: { amount: string | null; currency: string } | null;
}

/** Undefined when the link is unknown or unpublished, or the request is not the link's (the page answers 404). */
export async function loadPaymentPage(db: DbOrTx, token: string, requestToken?: string, config?: Config): Promise<PaymentPage | undefined> {
  const link = await findPublishedLinkByToken(db, token);
  if (!link) return undefined;
  let request: PaymentPage['request'] = null;
  if (requestToken !== undefined) {
    const r = await findPaymentRequestByToken(db, link.id, requestToken);
    if (!r) return undefined;
    request = { amount: formatAmount(r.amount, r.currency), currency: r.currency, reference: r.reference, status: r.status as PaymentRequestStatus, expiresAt: new Date(r.expires_at) };
  }
  const business = await db.selectFrom('businesses').select('name').where('id', '=', link.business_id).executeTakeFirstOrThrow();
  const ready = await methodReadiness(db, link.business_id, link.environment, config);
  let crypto: PaymentPage['crypto'] = null;
  const net = config ? solanaNetworkFor(config, link.environment) : null;
  if (ready.crypto && net && (link.methods as string[]).includes('crypto') && (!request || request.currency === 'USD')) {
    const addr = await ensureDepositAddressRow(db, link.business_id, net);
    crypto = { address: addr.owner_address, network: 'solana', amount: request ? request.amount : null, minimumDeposit: formatAmount(net.minimumDeposit, USDC) };
  }
  const accounts = (await activeVirtualAccounts(db, link.business_id, link.environment))
    .filter((a) => !request || a.currency === request.currency)
    .map((a) => ({ currency: a.currency, rail: a.rail, referenceRequired: a.reference_required, details: a.details }));
  const card = ready.card && (link.methods as string[]).includes('card') ? { amount: request ? request.amount : null, currency: request ? request.currency : 'USD' } : null;
  return {
    environment: link.environment,
    businessName: business.name,
    linkName: link.name,
    readyMethods: (link.methods as PaymentMethodType[]).filter((m) => ready[m] && (m !== 'crypto' || crypto !== null)),
    accounts,
    request,
    crypto,
    card,
  };
}
