/**
 * Contract of webhookDeliveryWorkflow (workflows/webhook-delivery.ts): its type name, input and
 * status, the `status` query, failure type names and the activities it proxies. Everything outside
 * the workflow body imports this module, never the body (docs/architecture.md "Workflow contracts").
 */
import { defineQuery } from '@temporalio/workflow';
import type { WebhookRetrySchedule } from '../src/domain/webhook-events';

/** Workflow type name of one delivery (workflow_starts.workflow_type). */
export const WEBHOOK_DELIVERY_WORKFLOW_TYPE = 'webhookDeliveryWorkflow';

/** Input: the delivery and its retry schedule (the workflow cannot read configuration). */
export interface WebhookDeliveryInput {
  deliveryId: string;
  schedule: WebhookRetrySchedule;
}

/** Answer of the `status` query and the workflow's result. */
export interface WebhookDeliveryStatus {
  deliveryId: string;
  /** `delivering` while attempts go on; `succeeded` after a 2xx; `failed` when given up. */
  status: 'delivering' | 'succeeded' | 'failed';
  /** Why the delivery was given up (last attempt's error, or `endpoint deleted`). */
  reason?: string;
}

/** `status` query (docs/architecture.md "Workflow ids and task queues": every workflow answers one). */
export const webhookDeliveryStatusQuery = defineQuery<WebhookDeliveryStatus>('status');

/**
 * Result of `deliverWebhook`: how the delivery ended, or `failed` when an attempt numbered by the
 * workflow got no 2xx (the workflow then waits out the next delay). A call without an attempt
 * number (scheduled by the workflow before it numbered its attempts) throws instead of `failed`.
 */
export type DeliverWebhookResult = 'succeeded' | 'already_succeeded' | 'already_failed' | 'endpoint_deleted' | 'failed';

/** Failure type of a retryable delivery attempt (non-2xx answer, timeout, connection error). */
export const WEBHOOK_ATTEMPT_FAILED = 'WebhookAttemptFailed';
/** Failure type when the delivery row does not exist (not retried). */
export const WEBHOOK_DELIVERY_NOT_FOUND = 'WebhookDeliveryNotFound';

/**
 * The activities webhookDeliveryWorkflow proxies (activities/webhooks.ts implements them). The
 * workflow numbers the attempts and waits out the delays between them (docs/webhooks.md "Retries");
 * each call makes one attempt.
 */
export interface WebhookDeliveryActivities {
  /**
   * Delivery attempt `attempt` (1-based) of `deliveryId`: `failed` when the endpoint did not answer
   * 2xx. Without `attempt` (an activity scheduled by the workflow before it numbered its attempts,
   * still retried by its RetryPolicy on the server) the attempt is Temporal's and a non-2xx answer
   * throws a retryable failure ({@link WEBHOOK_ATTEMPT_FAILED}) instead. Throws a non-retryable
   * failure ({@link WEBHOOK_DELIVERY_NOT_FOUND}) when the delivery is unknown.
   */
  deliverWebhook(deliveryId: string, attempt?: number): Promise<DeliverWebhookResult>;
  /** Marks `deliveryId` failed (retry window spent); keeps a completed delivery as it is. */
  markWebhookDeliveryFailed(deliveryId: string): Promise<void>;
}
