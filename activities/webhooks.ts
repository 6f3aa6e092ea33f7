import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Core } from '../src/core/context';
import { attemptWebhookDelivery, markWebhookDeliveryFailed } from '../src/core/webhooks';
import { surfaceBNextRetryDelayMs } from '../src/domain/surface-b';
import {
  type DeliverWebhookResult,
  WEBHOOK_ATTEMPT_FAILED,
  WEBHOOK_DELIVERY_NOT_FOUND,
  type WebhookDeliveryActivities,
} from '../workflows/webhook-delivery.contract';

export type { WebhookDeliveryActivities };

/** Webhook activities: one attempt per call; the workflow numbers them (docs/webhooks.md "Retries"). */
export function createWebhookActivities(core: Core) {
  return {
    /** Without `attempt` (older histories) a non-2xx throws a retryable {@link WEBHOOK_ATTEMPT_FAILED}. */
    async deliverWebhook(deliveryId: string, attempt?: number): Promise<DeliverWebhookResult> {
      const info = Context.current().info;
      const numbered = attempt !== undefined;
      const number = attempt ?? info.attempt;
      // A re-send runs as workflow `<delivery id>.r<n>`: its attempts are recorded under run `r<n>`.
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
            // Surface B: 5 min, 30 min, 2 h, 12 h after attempts 1-4; none after the 5th.
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

    async markWebhookDeliveryFailed(deliveryId: string): Promise<void> {
      await markWebhookDeliveryFailed(core, deliveryId);
    },
  } satisfies WebhookDeliveryActivities;
}
