/** The notification step of payoutWorkflow; errors retrying cannot fix fail with NOTIFICATION_NOT_DELIVERABLE. */
import { ApplicationFailure } from '@temporalio/activity';
import type { Core } from '../src/core/context';
import {
  markPayoutNotificationFailed,
  type NotificationProvider,
  NotificationProviderError,
  sendPayoutNotification,
} from '../src/core/notifications';
import { NOTIFICATION_NOT_DELIVERABLE, type PayoutNotificationActivities, type PayoutNotifyResult } from '../workflows/payout.contract';

/** Test seams: a provider instead of the environment's, and a hook between the provider call and the recording. */
export interface NotificationActivityOptions {
  provider?: NotificationProvider;
  afterProviderCall?: () => void | Promise<void>;
}

export function createNotificationActivities(core: Core, opts: NotificationActivityOptions = {}) {
  return {
    async payoutNotify(input: { payoutId: string }): Promise<PayoutNotifyResult> {
      try {
        const out = await sendPayoutNotification(core, input.payoutId, opts);
        return { result: out.result };
      } catch (err) {
        if (err instanceof NotificationProviderError && !err.retryable) {
          throw ApplicationFailure.create({ type: NOTIFICATION_NOT_DELIVERABLE, message: err.message, nonRetryable: true });
        }
        throw err;
      }
    },

    async payoutNotificationFailed(input: { payoutId: string; error: string }): Promise<void> {
      await markPayoutNotificationFailed(core, input.payoutId, input.error);
    },
  } satisfies PayoutNotificationActivities;
}
