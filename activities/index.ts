import type { Core } from '../src/core/context';
import { createDisbursementActivities } from './disbursements';
import { createFundingActivities } from './funding';
import { createPayoutActivities } from './payouts';
import { createWebhookActivities } from './webhooks';

/**
 * Every activity of the service, built over the one core (DESIGN.md "Layout": createActivities(deps)).
 * Grouped by what they touch; each group is idempotent (postings, projections and events are keyed).
 */
export function createActivities(core: Core) {
  return {
    ...createWebhookActivities(core),
    ...createPayoutActivities(core),
    ...createDisbursementActivities(core),
    ...createFundingActivities(core),
  };
}

/** The activity interface workflows proxy (`proxyActivities<Activities>()`). */
export type Activities = ReturnType<typeof createActivities>;
