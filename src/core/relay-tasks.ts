import { recoverDisbursementRuns } from './disbursements';
import type { RelayTask } from './relay';
import { dispatchWebhookEvents } from './webhooks';
import { sendPendingFallbacks } from './notifications/payout-notifications';

/** Runs `task` at most once per `everyMs` (the relay ticks every 250 ms); reports 0 so it never drains in a loop. */
function throttled(task: RelayTask, everyMs: number): RelayTask {
  let last = 0;
  return async (core) => {
    if (Date.now() - last < everyMs) return 0;
    last = Date.now();
    await task(core);
    return 0;
  };
}

/**
 * Relay tasks beyond the workflow-start sweep: webhook dispatch, and every 30 s the recovery of
 * processing disbursements whose workflow is not running (src/core/disbursements/), and every second
 * the SMS fallbacks of notifications WhatsApp could not deliver (src/core/notifications).
 */
export const relayTasks: RelayTask[] = [dispatchWebhookEvents, throttled((core) => recoverDisbursementRuns(core), 30_000), throttled(sendPendingFallbacks, 1000)];
