/** Temporal client calls about a payment request's workflow (workflows/payment-request.contract.ts). */
import type { Config } from '../config';
import { PAYMENT_REQUEST_WORKFLOW_TYPE, type PaymentRequestWorkflowInput } from '../../workflows/payment-request.contract';
import { type RecordedStart, startIdempotently, type TemporalClient } from './client';
import { taskQueueFor } from './task-queues';

/** Starts paymentRequestWorkflow for a recorded start (idempotent). */
export async function startPaymentRequestWorkflow(
  temporal: TemporalClient,
  config: Pick<Config, 'TASK_QUEUE'>,
  start: RecordedStart,
): Promise<void> {
  await startIdempotently(temporal, {
    workflowType: PAYMENT_REQUEST_WORKFLOW_TYPE,
    workflowId: start.workflowId,
    taskQueue: taskQueueFor(config, PAYMENT_REQUEST_WORKFLOW_TYPE),
    args: start.args as [PaymentRequestWorkflowInput],
    searchAttributes: start.searchAttributes,
  });
}
