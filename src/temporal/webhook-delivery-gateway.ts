/** Temporal client calls about a webhook delivery's workflow (workflows/webhook-delivery.contract.ts). */
import type { Config } from '../config';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE, type WebhookDeliveryInput } from '../../workflows/webhook-delivery.contract';
import { type RecordedStart, startIdempotently, type TemporalClient } from './client';
import { taskQueueFor } from './task-queues';

/** Starts webhookDeliveryWorkflow for a recorded start (idempotent). */
export async function startWebhookDelivery(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE'>, start: RecordedStart): Promise<void> {
  await startIdempotently(temporal, {
    workflowType: WEBHOOK_DELIVERY_WORKFLOW_TYPE,
    workflowId: start.workflowId,
    taskQueue: taskQueueFor(config, WEBHOOK_DELIVERY_WORKFLOW_TYPE),
    args: start.args as [WebhookDeliveryInput],
    searchAttributes: start.searchAttributes,
  });
}
