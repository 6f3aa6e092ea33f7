/** Contract of paymentRequestWorkflow (docs/getting-paid.md "Payment requests"). */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { PaymentRequestStatus } from '../src/domain/funding';

/** Workflow id = the payment request id (`preq_…`). */
export const PAYMENT_REQUEST_WORKFLOW_TYPE = 'paymentRequestWorkflow';

/** `expiresAt`: ISO 8601 UTC. */
export interface PaymentRequestWorkflowInput {
  requestId: string;
  expiresAt: string;
}

export interface PaymentRequestWorkflowResult {
  requestId: string;
  status: PaymentRequestStatus;
}

/** Sent by depositWorkflow when a deposit paid the request; ends the wait early. */
export const paymentRequestPaidSignal = defineSignal('paid');
export const paymentRequestStatusQuery = defineQuery<PaymentRequestStatus>('status');

export interface PaymentRequestExpireResult {
  status: PaymentRequestStatus;
  /** Set while the request is open and expires_at is ahead by the database clock. */
  retryInMs?: number;
}

export interface PaymentRequestActivities {
  /** open -> expired once past expires_at (guarded UPDATE); `clockOffsetMs`: the test-clock advance (docs/test-clocks.md). */
  paymentRequestExpire(input: { requestId: string; clockOffsetMs?: number }): Promise<PaymentRequestExpireResult>;
}
