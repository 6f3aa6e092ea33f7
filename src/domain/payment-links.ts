/**
 * Payment links and payment requests as the core returns them (spec "PaymentLink",
 * "PaymentRequest"; docs/getting-paid.md). Each surface renders its own wire shape
 * (src/wire/surface-a/payment-links.ts, src/api/surface-c/payment-links.ts).
 */
import type { PaymentMethodType, PaymentRequestStatus } from './funding';
import type { Money } from './money';

/** A payment link with the readiness of each of its methods, evaluated when it was read. */
export interface PaymentLink {
  id: string;
  name: string;
  /** The public page payers open: `{publicUrl}/pay/{token}`. */
  url: string;
  methods: { type: PaymentMethodType; ready: boolean }[];
  published: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A fixed amount to be paid into one of the business's virtual accounts, quoting `reference`, before `expiresAt`. */
export interface PaymentRequest {
  id: string;
  paymentLinkId: string;
  /** The public page of the request: `{publicUrl}/pay/{link token}/{request token}`. */
  url: string;
  amount: Money;
  reference: string;
  status: PaymentRequestStatus;
  expiresAt: Date;
  paidAt: Date | null;
  /** The deposit that paid it (status `paid`). */
  depositId: string | null;
  createdAt: Date;
}

/** Public page address of a payment link. */
export const paymentLinkUrl = (publicUrl: string, token: string) => `${publicUrl}/pay/${token}`;
/** Public page address of a payment request. */
export const paymentRequestUrl = (publicUrl: string, linkToken: string, token: string) => `${publicUrl}/pay/${linkToken}/${token}`;
