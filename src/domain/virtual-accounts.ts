/** A virtual account as the core returns it (spec "VirtualAccount"), details masked. */
import type { VirtualAccountCurrency, VirtualAccountDetails } from './funding';

export interface VirtualAccount {
  id: string;
  currency: VirtualAccountCurrency;
  rail: string;
  status: 'active';
  details: VirtualAccountDetails;
  referenceRequired: boolean;
  label: string | null;
  createdAt: Date;
}
