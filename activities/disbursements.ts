/** Activities of disbursementWorkflow over src/core/disbursements: one transaction each, idempotent. */
import type { Core } from '../src/core/context';
import { claimItems, finalizeDisbursement, projectionStatus } from '../src/core/disbursements';
import type { DisbursementActivities } from '../workflows/disbursement.contract';

export type { DisbursementActivities };

export function createDisbursementActivities(core: Core) {
  return {
    /** Items become payouts of their current attempt (funding 'batch', no workflow start), at most `window` in flight. */
    async disbursementClaimItems(input) {
      return claimItems(core, input);
    },
    async disbursementFinalize(input) {
      return finalizeDisbursement(core, input);
    },
    async disbursementProjectionStatus(input) {
      return projectionStatus(core, input);
    },
  } satisfies DisbursementActivities;
}
