/** Wire shapes of payment links and payment requests (spec "PaymentLink", "PaymentRequest"; Surface A snake_case). */
import type { Selectable } from 'kysely';
import type { PaymentLinksTable, PaymentRequestsTable } from '../../db/tables/funding';
import type { PaymentMethodType, PaymentRequestStatus } from '../../domain/funding';
import { formatAmount } from '../../domain/money';

/** A stored payment link row. */
export type PaymentLinkRow = Selectable<PaymentLinksTable>;
/** A stored payment request row (amount in minor units of currency). */
export type PaymentRequestRow = Selectable<PaymentRequestsTable>;

/** Spec "PaymentRequest" plus `object`, `payment_link_id`, `paid_at`, `deposit_id`, `created_at`. */
export interface WirePaymentRequest {
  id: string;
  object: 'payment_request';
  payment_link_id: string;
  url: string;
  amount: string;
  currency: string;
  reference: string;
  status: PaymentRequestStatus;
  expires_at: string;
  paid_at: string | null;
  /** The deposit that paid it (status paid). */
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

/** Public page address of a payment link: `{publicUrl}/pay/{token}`. */
export const paymentLinkUrl = (publicUrl: string, token: string) => `${publicUrl}/pay/${token}`;
/** Public page address of a payment request: `{publicUrl}/pay/{link token}/{request token}`. */
export const paymentRequestUrl = (publicUrl: string, linkToken: string, token: string) => `${publicUrl}/pay/${linkToken}/${token}`;

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** The wire shape of a payment request row (`linkToken`: its link's page token). */
export function renderPaymentRequest(row: PaymentRequestRow, linkToken: string, publicUrl: string): WirePaymentRequest {
  return {
    id: row.id,
    object: 'payment_request',
    payment_link_id: row.payment_link_id,
    url: paymentRequestUrl(publicUrl, linkToken, row.token),
    amount: formatAmount(row.amount, row.currency),
    currency: row.currency,
    reference: row.reference,
    status: row.status as PaymentRequestStatus,
    expires_at: new Date(row.expires_at).toISOString(),
    paid_at: iso(row.paid_at),
    deposit_id: row.deposit_id,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** The wire shape of a payment link row with its methods' readiness (./payment-links.ts methodReadiness). */
export function renderPaymentLink(row: PaymentLinkRow, ready: Record<PaymentMethodType, boolean>, publicUrl: string): WirePaymentLink {
  return {
    id: row.id,
    object: 'payment_link',
    name: row.name,
    url: paymentLinkUrl(publicUrl, row.token),
    methods: (row.methods as PaymentMethodType[]).map((type) => ({ type, ready: ready[type] })),
    published: row.published,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}
