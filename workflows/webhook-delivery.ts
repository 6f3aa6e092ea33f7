import { ActivityFailure, defineQuery, isCancellation, proxyActivities, rootCause, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { WebhookRetrySchedule } from '../src/domain/webhook-events';

/**
 * One webhook delivery (one event to one endpoint), workflow id = delivery id (`whd_…`), so an
 * operator finds every delivery in the Temporal UI (search attributes BusinessId, Environment).
 *
 * The retry schedule is the `deliverWebhook` activity's RetryPolicy, not a loop (DESIGN "Temporal
 * conventions"): Surface A retries with exponential backoff for 24 hours (spec "Limits"). When the
 * window is spent (or the attempt cannot be retried) the delivery is marked failed.
 */

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

/** `status` query (DESIGN "Every workflow answers a status query"). */
export const webhookDeliveryStatusQuery = defineQuery<WebhookDeliveryStatus>('status');

/** Delivers one event to one endpoint under the input's retry schedule; returns the final status. */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryStatus> {
  const { deliveryId, schedule } = input;
  const state: WebhookDeliveryStatus = { deliveryId, status: 'delivering' };
  setHandler(webhookDeliveryStatusQuery, () => state);

  const { deliverWebhook } = proxyActivities<Activities>({
    scheduleToCloseTimeout: schedule.windowMs,
    startToCloseTimeout: schedule.attemptTimeoutMs,
    retry: {
      initialInterval: schedule.initialIntervalMs,
      backoffCoefficient: schedule.backoffCoefficient,
      maximumInterval: schedule.maximumIntervalMs,
      // maximumAttempts unset = unlimited: the window (scheduleToCloseTimeout) ends the retries.
    },
  });
  const { markWebhookDeliveryFailed } = proxyActivities<Activities>({
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
