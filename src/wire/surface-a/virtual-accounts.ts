/** Surface A's virtual account (spec "VirtualAccount"; snake_case, details masked). */
import type { VirtualAccountCurrency, VirtualAccountDetails } from '../../domain/funding';
import type { VirtualAccount } from '../../domain/virtual-accounts';

/** Spec "VirtualAccount" plus `object`, `label`, `created_at`. */
export interface WireVirtualAccount {
  id: string;
  object: 'virtual_account';
  currency: VirtualAccountCurrency;
  rail: string;
  status: 'active';
  details: VirtualAccountDetails;
  reference_required: boolean;
  label: string | null;
  created_at: string;
}

/** Surface A's virtual account. */
export function renderVirtualAccount(a: VirtualAccount): WireVirtualAccount {
  return {
    id: a.id,
    object: 'virtual_account',
    currency: a.currency,
    rail: a.rail,
    status: a.status,
    details: a.details,
    reference_required: a.referenceRequired,
    label: a.label,
    created_at: a.createdAt.toISOString(),
  };
}
