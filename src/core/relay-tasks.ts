import { recoverDisbursementRuns } from './disbursements';
import type { RelayTask } from './relay';
import { dispatchWebhookEvents } from './webhooks';
import { sendPendingFallbacks } from './notifications/payout-notifications';
import { pollCardPayments } from './cards/card-payments';
import { cardMoneyBackSweep } from './cards/sweep';

/** Runs `task` at most once per `everyMs`; reports 0 so it never drains in a loop. */
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
 * Relay tasks beyond the start sweep: webhook dispatch, disbursement run recovery (30 s), SMS
 * fallbacks (1 s), polling stale live card payments (15 s) and card money back (60 s: reserve
 * releases, refund retries, dispute shortfall recovery; docs/getting-paid.md).
 */
export const relayTasks: RelayTask[] = [
  dispatchWebhookEvents,
  throttled((core) => recoverDisbursementRuns(core), 30_000),
  throttled(sendPendingFallbacks, 1000),
  throttled(pollCardPayments, 15_000),
  throttled(cardMoneyBackSweep, 60_000),
];
