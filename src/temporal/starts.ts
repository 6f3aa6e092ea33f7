/** Starts a workflow recorded in the workflow-start outbox through its type's gateway (docs/architecture.md "Outboxes"). */
import type { Config } from '../config';
import { DISBURSEMENT_WORKFLOW_TYPE } from '../../workflows/disbursement.contract';
import { PAYOUT_WORKFLOW_TYPE } from '../../workflows/payout.contract';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE } from '../../workflows/webhook-delivery.contract';
import { DEPOSIT_WORKFLOW_TYPE } from '../../workflows/deposit.contract';
import { PAYMENT_REQUEST_WORKFLOW_TYPE } from '../../workflows/payment-request.contract';
import { startDepositWorkflow } from './deposit-gateway';
import { startPaymentRequestWorkflow } from './payment-request-gateway';
import { type RecordedStart, startIdempotently, type TemporalClient } from './client';
import { startDisbursementRun } from './disbursement-gateway';
import { startPayoutWorkflow } from './payout-gateway';
import { taskQueueFor } from './task-queues';
import { startWebhookDelivery } from './webhook-delivery-gateway';

type StartFn = (temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE'>, start: RecordedStart) => Promise<void>;

const STARTERS: Record<string, StartFn> = {
  [PAYOUT_WORKFLOW_TYPE]: startPayoutWorkflow,
  [DISBURSEMENT_WORKFLOW_TYPE]: startDisbursementRun,
  [WEBHOOK_DELIVERY_WORKFLOW_TYPE]: startWebhookDelivery,
  [DEPOSIT_WORKFLOW_TYPE]: startDepositWorkflow,
  [PAYMENT_REQUEST_WORKFLOW_TYPE]: startPaymentRequestWorkflow,
};

/** Starts a recorded workflow (idempotent) through its gateway, else generically on {@link taskQueueFor}'s queue. */
export async function startRecordedWorkflow(
  temporal: TemporalClient,
  config: Pick<Config, 'TASK_QUEUE'>,
  workflowType: string,
  start: RecordedStart,
): Promise<void> {
  const starter = STARTERS[workflowType];
  if (starter) return starter(temporal, config, start);
  await startIdempotently(temporal, { workflowType, taskQueue: taskQueueFor(config, workflowType), ...start });
}
