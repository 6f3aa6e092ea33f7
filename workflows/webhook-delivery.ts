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
 * One webhook delivery, workflow id = delivery id (`whd_…`). It numbers the attempts and waits on
 * the business's test clock between them (docs/webhooks.md "Retries"). Replay: histories started
 * before numbering replay unchanged (test/workflows/webhook-replay.test.ts).
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryStatus> {
  const { deliveryId, schedule } = input;
  const state: WebhookDeliveryStatus = { deliveryId, status: 'delivering' };
  setHandler(webhookDeliveryStatusQuery, () => state);
  const clock = installTestClock();

  // The retry policy covers a lost worker or database error; the attempt number makes it idempotent.
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
      while (clock.now() < due) {
        const version = clock.version();
        await condition(() => clock.version() !== version, due - clock.now());
      }
    }
  } catch (err) {
    // Older histories: a spent RetryPolicy gives the delivery up; anything else must fail the task.
    if (isCancellation(err) || !(err instanceof ActivityFailure)) throw err;
    state.status = 'failed';
    state.reason = rootCause(err as Error) ?? 'retries exhausted';
    await markWebhookDeliveryFailed(deliveryId);
    return state;
  }
}
