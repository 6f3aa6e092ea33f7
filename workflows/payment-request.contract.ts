/**
 * Contract of paymentRequestWorkflow (workflows/payment-request.ts): type name, input/result,
 * messages and the activities it proxies. Others import this module, never the body.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { PaymentRequestStatus } from '../src/domain/funding';

/** Workflow type name. Workflow id = the payment request id (`preq_…`). */
export const PAYMENT_REQUEST_WORKFLOW_TYPE = 'paymentRequestWorkflow';

/** Argument: the request and its expiry (ISO 8601 UTC). */
export interface PaymentRequestWorkflowInput {
  requestId: string;
  expiresAt: string;
}

/** Result: the final status (paid or expired). */
export interface PaymentRequestWorkflowResult {
  requestId: string;
  status: PaymentRequestStatus;
}

/** Signal `paid`: a deposit paid the request (sent by depositWorkflow); ends the wait early. */
export const paymentRequestPaidSignal = defineSignal('paid');
/** Query `status`: open until paid or expired. */
export const paymentRequestStatusQuery = defineQuery<PaymentRequestStatus>('status');

/** What the expiry step found: the status now stored, and if still open, how long until it is due. */
export interface PaymentRequestExpireResult {
  status: PaymentRequestStatus;
  /** Set when the request is open and expires_at is still ahead by the database clock. */
  retryInMs?: number;
}

/** Activities paymentRequestWorkflow proxies (activities/funding.ts). */
export interface PaymentRequestActivities {
  /**
   * open -> expired when expires_at has passed (one guarded UPDATE; no-op when paid or expired).
   * `clockOffsetMs`: the business's test-clock advance (sandbox; docs/test-clocks.md), added to
   * the database clock for the comparison.
   */
  paymentRequestExpire(input: { requestId: string; clockOffsetMs?: number }): Promise<PaymentRequestExpireResult>;
}
