/** Payment links and requests as the core returns them (spec "PaymentLink", "PaymentRequest"). */
import type { PaymentMethodType, PaymentRequestStatus } from './funding';
import type { Money } from './money';

/** A payment link with each method's readiness when read. */
export interface PaymentLink {
  id: string;
  name: string;
  url: string;
  methods: { type: PaymentMethodType; ready: boolean }[];
  published: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface PaymentRequest {
  id: string;
  paymentLinkId: string;
  url: string;
  amount: Money;
  reference: string;
  status: PaymentRequestStatus;
  expiresAt: Date;
  paidAt: Date | null;
  depositId: string | null;
  createdAt: Date;
}

export const paymentLinkUrl = (publicUrl: string, token: string) => `${publicUrl}/pay/${token}`;
export const paymentRequestUrl = (publicUrl: string, linkToken: string, token: string) => `${publicUrl}/pay/${linkToken}/${token}`;
