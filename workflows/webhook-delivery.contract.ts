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

/** Result of `deliverWebhook`: how the delivery ended (a failed attempt throws instead). */
export type DeliverWebhookResult = 'succeeded' | 'already_succeeded' | 'already_failed' | 'endpoint_deleted';

/** Failure type of a retryable delivery attempt (non-2xx answer, timeout, connection error). */
export const WEBHOOK_ATTEMPT_FAILED = 'WebhookAttemptFailed';
/** Failure type when the delivery row does not exist (not retried). */
export const WEBHOOK_DELIVERY_NOT_FOUND = 'WebhookDeliveryNotFound';

/**
 * The activities webhookDeliveryWorkflow proxies (activities/webhooks.ts implements them). The
 * retry schedule is the workflow's RetryPolicy for `deliverWebhook`; each call makes one attempt.
 */
export interface WebhookDeliveryActivities {
  /**
   * One delivery attempt of `deliveryId`. Throws a retryable failure ({@link WEBHOOK_ATTEMPT_FAILED})
   * when the endpoint did not answer 2xx, a non-retryable one ({@link WEBHOOK_DELIVERY_NOT_FOUND})
   * when the delivery is unknown.
   */
  deliverWebhook(deliveryId: string): Promise<DeliverWebhookResult>;
  /** Marks `deliveryId` failed (retry window spent); keeps a completed delivery as it is. */
  markWebhookDeliveryFailed(deliveryId: string): Promise<void>;
}
