import { ActivityFailure, condition, isCancellation, proxyActivities, rootCause, setHandler } from '@temporalio/workflow';
import { webhookRetryDelayMs } from '../src/domain/webhook-events';
import { installTestClock } from './shared/test-clock';
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
 * The workflow numbers the attempts and waits out the delay between two of them on a durable
 * timer (docs/webhooks.md "Retries"): Surface A retries with exponential backoff for 24 hours
 * (spec "Limits"), Surface B five times on its fixed delays. The wait follows the business's
 * sandbox test clock (docs/test-clocks.md): an advance past the next attempt's time makes it at
 * once. When the window or the attempts are spent the delivery is marked failed.
 *
 * Replay: the first command is the same `deliverWebhook` activity as when the schedule was the
 * activity's RetryPolicy, and only a `failed` result (which that activity never returned) leads to
 * a timer, so deliveries started before this loop replay unchanged; an activity of theirs still
 * retried by the server and finally failing gives the delivery up as before
 * (test/workflows/webhook-replay.test.ts).
 */

/** Delivers one event to one endpoint under the input's retry schedule; returns the final status. */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryStatus> {
  const { deliveryId, schedule } = input;
  const state: WebhookDeliveryStatus = { deliveryId, status: 'delivering' };
  setHandler(webhookDeliveryStatusQuery, () => state);
  const clock = installTestClock();

  // One attempt per call; the retry policy covers only a lost worker or a database error, which
  // the same attempt number makes idempotent (webhook_attempts is keyed by delivery, run, number).
  const { deliverWebhook } = proxyActivities<WebhookDeliveryActivities>({
    scheduleToCloseTimeout: schedule.windowMs,
    startToCloseTimeout: schedule.attemptTimeoutMs,
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });
  const { markWebhookDeliveryFailed } = proxyActivities<WebhookDeliveryActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { maximumInterval: '1 minute' },
  });

  const firstAttemptAt = clock.now();
  try {
    for (let attempt = 1; ; attempt++) {
      const result = await deliverWebhook(deliveryId, attempt);
      if (result === 'succeeded' || result === 'already_succeeded') {
        state.status = 'succeeded';
        return state;
      }
      if (result !== 'failed') {
        state.status = 'failed';
        state.reason = result === 'endpoint_deleted' ? 'endpoint deleted' : 'already failed';
        return state;
      }
      const delay = webhookRetryDelayMs(schedule, attempt);
      const due = clock.now() + (delay ?? 0);
      if (delay === null || due - firstAttemptAt > schedule.windowMs) {
        state.status = 'failed';
        state.reason = `retries exhausted after attempt ${attempt}`;
        await markWebhookDeliveryFailed(deliveryId);
        return state;
      }
      // The next attempt's time on the business's clock: an advance of the sandbox test clock
      // ends the wait early (or shortens it); without one this is one timer.
      while (clock.now() < due) {
        const version = clock.version();
        await condition(() => clock.version() !== version, due - clock.now());
      }
    }
  } catch (err) {
    // A delivery whose activity was scheduled before the workflow numbered its attempts: its
    // spent RetryPolicy (or a non-retryable attempt) gives it up. Anything else is a bug that must
    // fail the workflow task visibly, not silently drop the delivery.
    if (isCancellation(err) || !(err instanceof ActivityFailure)) throw err;
    state.status = 'failed';
    state.reason = rootCause(err as Error) ?? 'retries exhausted';
    await markWebhookDeliveryFailed(deliveryId);
    return state;
  }
}
