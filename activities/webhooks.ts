import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Core } from '../src/core/context';
import { attemptWebhookDelivery, markWebhookDeliveryFailed } from '../src/core/webhooks';
import { surfaceBNextRetryDelayMs } from '../src/core/webhooks-surface-b';
import {
  type DeliverWebhookResult,
  WEBHOOK_ATTEMPT_FAILED,
  WEBHOOK_DELIVERY_NOT_FOUND,
  type WebhookDeliveryActivities,
} from '../workflows/webhook-delivery.contract';

export type { WebhookDeliveryActivities };

/**
 * Webhook activities (docs/architecture.md "Activities"). The delivery workflow numbers the
 * attempts and waits between them (docs/webhooks.md "Retries"); these only make one attempt each.
 */
export function createWebhookActivities(core: Core) {
  return {
    /**
     * Delivery attempt `attempt` of `deliveryId` (src/core/webhooks.ts attemptWebhookDelivery):
     * `failed` when the endpoint did not answer 2xx; the workflow waits out the next delay. Without
     * `attempt` (an activity scheduled before the workflow numbered its attempts) the attempt is
     * Temporal's and a non-2xx answer throws a retryable ApplicationFailure
     * ({@link WEBHOOK_ATTEMPT_FAILED}) for its RetryPolicy. Non-retryable when the delivery is unknown.
     */
    async deliverWebhook(deliveryId: string, attempt?: number): Promise<DeliverWebhookResult> {
      const info = Context.current().info;
      const numbered = attempt !== undefined;
      const number = attempt ?? info.attempt;
      // A re-send runs as workflow `<delivery id>.r<n>` (src/core/webhook-deliveries.ts): its
      // attempts are recorded under run `r<n>`, the first run's under ''.
      const wid = info.workflowExecution?.workflowId ?? deliveryId;
      const run = wid.startsWith(`${deliveryId}.`) ? wid.slice(deliveryId.length + 1) : '';
      const out = await attemptWebhookDelivery(core, deliveryId, number, run);
      switch (out.result) {
        case 'succeeded':
          return 'succeeded';
        case 'already_completed':
          return out.status === 'succeeded' ? 'already_succeeded' : 'already_failed';
        case 'endpoint_deleted':
          return 'endpoint_deleted';
        case 'not_found':
          throw ApplicationFailure.nonRetryable(`Webhook delivery ${deliveryId} does not exist`, WEBHOOK_DELIVERY_NOT_FOUND);
        case 'failed': {
          if (numbered) return 'failed';
          if (out.surface === 'B') {
            // Surface B's fixed schedule: 5 min, 30 min, 2 h, 12 h after attempts 1-4; none after the 5th.
            const delay = surfaceBNextRetryDelayMs(number);
            throw ApplicationFailure.create({
              message: `Webhook delivery ${deliveryId}, attempt ${number}: ${out.error}; ${delay === null ? 'no attempt left' : `next attempt in ${delay / 60_000} min`}`,
              type: WEBHOOK_ATTEMPT_FAILED,
              details: [{ statusCode: out.statusCode }],
              nonRetryable: delay === null,
              ...(delay === null ? {} : { nextRetryDelay: delay }),
            });
          }
          throw ApplicationFailure.retryable(
            `Webhook delivery ${deliveryId}, attempt ${number}: ${out.error}; retrying with backoff`,
            WEBHOOK_ATTEMPT_FAILED,
            { statusCode: out.statusCode },
          );
        }
      }
    },

    /** Marks `deliveryId` failed (retry window spent); keeps a completed delivery as it is. */
    async markWebhookDeliveryFailed(deliveryId: string): Promise<void> {
      await markWebhookDeliveryFailed(core, deliveryId);
    },
  } satisfies WebhookDeliveryActivities;
}
