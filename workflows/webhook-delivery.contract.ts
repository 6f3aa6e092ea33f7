/** Contract of webhookDeliveryWorkflow (docs/architecture.md "Workflow contracts"). */
import { defineQuery } from '@temporalio/workflow';
import type { WebhookRetrySchedule } from '../src/domain/webhook-events';

export const WEBHOOK_DELIVERY_WORKFLOW_TYPE = 'webhookDeliveryWorkflow';

/** The retry schedule travels in the input: the workflow cannot read configuration. */
export interface WebhookDeliveryInput {
  deliveryId: string;
  schedule: WebhookRetrySchedule;
}

export interface WebhookDeliveryStatus {
  deliveryId: string;
  status: 'delivering' | 'succeeded' | 'failed';
  /** Last attempt's error, or `endpoint deleted`. */
  reason?: string;
}

export const webhookDeliveryStatusQuery = defineQuery<WebhookDeliveryStatus>('status');

/** `failed`: a numbered attempt got no 2xx; an unnumbered call (older histories) throws instead. */
export type DeliverWebhookResult = 'succeeded' | 'already_succeeded' | 'already_failed' | 'endpoint_deleted' | 'failed';

/** Failure type of a retryable attempt (non-2xx, timeout, connection error). */
export const WEBHOOK_ATTEMPT_FAILED = 'WebhookAttemptFailed';
/** Failure type of an unknown delivery (not retried). */
export const WEBHOOK_DELIVERY_NOT_FOUND = 'WebhookDeliveryNotFound';

/** The workflow numbers attempts and waits out the delays (docs/webhooks.md "Retries"); one attempt per call. */
export interface WebhookDeliveryActivities {
  /** Attempt `attempt` (1-based); without it a non-2xx throws {@link WEBHOOK_ATTEMPT_FAILED}. Unknown delivery: {@link WEBHOOK_DELIVERY_NOT_FOUND}. */
  deliverWebhook(deliveryId: string, attempt?: number): Promise<DeliverWebhookResult>;
  /** Retry window spent; a completed delivery stays as it is. */
  markWebhookDeliveryFailed(deliveryId: string): Promise<void>;
}
