/** Surface A's payment links and payment requests (spec "PaymentLink", "PaymentRequest"; snake_case, decimal strings). */
import type { PaymentMethodType, PaymentRequestStatus } from '../../domain/funding';
import { formatAmount } from '../../domain/money';
import type { PaymentLink, PaymentRequest } from '../../domain/payment-links';

/** Spec "PaymentRequest" plus `object`, `payment_link_id`, `paid_at`, `deposit_id`, `created_at`. */
export interface WirePaymentRequest {
  id: string;
  object: 'payment_request';
  payment_link_id: string;
  url: string;
  /** Decimal string in `currency`. */
  amount: string;
  currency: string;
  reference: string;
  status: PaymentRequestStatus;
  expires_at: string;
  paid_at: string | null;
  deposit_id: string | null;
  created_at: string;
}

/** Spec "PaymentLink" plus `object`, `created_at`, `updated_at`. */
export interface WirePaymentLink {
  id: string;
  object: 'payment_link';
  name: string;
  url: string;
  methods: { type: PaymentMethodType; ready: boolean }[];
  published: boolean;
  created_at: string;
  updated_at: string;
}

/** Surface A's payment request. */
export function renderPaymentRequest(r: PaymentRequest): WirePaymentRequest {
  return {
    id: r.id,
    object: 'payment_request',
    payment_link_id: r.paymentLinkId,
    url: r.url,
    amount: formatAmount(r.amount.minor, r.amount.currency),
    currency: r.amount.currency,
    reference: r.reference,
    status: r.status,
    expires_at: r.expiresAt.toISOString(),
    paid_at: r.paidAt ? r.paidAt.toISOString() : null,
    deposit_id: r.depositId,
    created_at: r.createdAt.toISOString(),
  };
}

/** Surface A's payment link. */
export function renderPaymentLink(l: PaymentLink): WirePaymentLink {
  return {
    id: l.id,
    object: 'payment_link',
    name: l.name,
    url: l.url,
    methods: l.methods.map((m) => ({ type: m.type, ready: m.ready })),
    published: l.published,
    created_at: l.createdAt.toISOString(),
    updated_at: l.updatedAt.toISOString(),
  };
}
