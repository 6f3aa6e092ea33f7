import type { Core } from '../src/core/context';
import type { DisbursementActivities } from '../workflows/disbursement.contract';
import type { PayoutActivities } from '../workflows/payout.contract';
import type { WebhookDeliveryActivities } from '../workflows/webhook-delivery.contract';
import { createDisbursementActivities } from './disbursements';
import { createPayoutActivities } from './payouts';
import { createWebhookActivities } from './webhooks';

/** Every activity the worker registers: the union of the activity interfaces of the workflow contracts. */
export type Activities = WebhookDeliveryActivities & PayoutActivities & DisbursementActivities;

/**
 * Every activity of the service, built over the one core (docs/architecture.md "Activities").
 * Grouped by workflow; each group is idempotent (postings, projections and events are keyed).
 */
export function createActivities(core: Core): Activities {
  return {
    ...createWebhookActivities(core),
    ...createPayoutActivities(core),
    ...createDisbursementActivities(core),
  };
}
