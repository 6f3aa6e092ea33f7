import { ActivityFailure, isCancellation, proxyActivities, rootCause, setHandler } from '@temporalio/workflow';
import {
  type WebhookDeliveryActivities,
  type WebhookDeliveryInput,
  type WebhookDeliveryStatus,
  webhookDeliveryStatusQuery,
} from './webhook-delivery.contract';

/**
 * One webhook delivery (one event to one endpoint), workflow id = delivery id (`whd_…`), so an
 * operator finds every delivery in the Temporal UI (search attributes BusinessId, Environment).
 *
 * The retry schedule is the `deliverWebhook` activity's RetryPolicy, not a loop (docs/architecture.md
 * "Workflow ids and task queues"): Surface A retries with exponential backoff for 24 hours (spec "Limits"). When the
 * window is spent (or the attempt cannot be retried) the delivery is marked failed.
 */

/** Delivers one event to one endpoint under the input's retry schedule; returns the final status. */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryStatus> {
  const { deliveryId, schedule } = input;
  const state: WebhookDeliveryStatus = { deliveryId, status: 'delivering' };
  setHandler(webhookDeliveryStatusQuery, () => state);

  const { deliverWebhook } = proxyActivities<WebhookDeliveryActivities>({
    scheduleToCloseTimeout: schedule.windowMs,
    startToCloseTimeout: schedule.attemptTimeoutMs,
    retry: {
      initialInterval: schedule.initialIntervalMs,
      backoffCoefficient: schedule.backoffCoefficient,
      maximumInterval: schedule.maximumIntervalMs,
      // maximumAttempts unset = unlimited: the window (scheduleToCloseTimeout) ends the retries.
      // Surface B sets 5, and its activity gives each delay as nextRetryDelay (0/5m/30m/2h/12h).
      ...(schedule.maximumAttempts ? { maximumAttempts: schedule.maximumAttempts } : {}),
    },
  });
  const { markWebhookDeliveryFailed } = proxyActivities<WebhookDeliveryActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { maximumInterval: '1 minute' },
  });

  try {
    const result = await deliverWebhook(deliveryId);
    if (result === 'succeeded' || result === 'already_succeeded') {
      state.status = 'succeeded';
    } else {
      state.status = 'failed';
      state.reason = result === 'endpoint_deleted' ? 'endpoint deleted' : 'already failed';
    }
  } catch (err) {
    // Only a spent schedule or a non-retryable attempt gives the delivery up; anything else is a
    // bug that must fail the workflow task visibly, not silently drop the delivery.
    if (isCancellation(err) || !(err instanceof ActivityFailure)) throw err;
    state.status = 'failed';
    state.reason = rootCause(err as Error) ?? 'retries exhausted';
    await markWebhookDeliveryFailed(deliveryId);
  }
  return state;
}
