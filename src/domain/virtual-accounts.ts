/**
 * A virtual account as the core returns it (spec "VirtualAccount"; docs/getting-paid.md "Virtual
 * accounts"): bank details a business gives its payers, details masked. Each surface renders its
 * own wire shape (src/wire/surface-a/virtual-accounts.ts, src/api/surface-b/funding.ts).
 */
import type { VirtualAccountCurrency, VirtualAccountDetails } from './funding';

/** A virtual account; `details` masked (src/domain/masking.ts). */
export interface VirtualAccount {
  id: string;
  currency: VirtualAccountCurrency;
  rail: string;
  status: 'active';
  details: VirtualAccountDetails;
  /** Deposits must quote the payment request's reference to be matched (EUR accounts). */
  referenceRequired: boolean;
  label: string | null;
  createdAt: Date;
}
