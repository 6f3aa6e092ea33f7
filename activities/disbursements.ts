/** Activities of disbursementWorkflow over src/core/disbursements: one transaction each, idempotent. */
import type { Core } from '../src/core/context';
import { claimAndStartItems, claimItems, finalizeDisbursement, projectionStatus } from '../src/core/disbursements';
import type { DisbursementActivities } from '../workflows/disbursement.contract';

export type { DisbursementActivities };

export function createDisbursementActivities(core: Core) {
  return {
    /** Items become payouts of their current attempt (funding 'batch', no workflow start), at most `window` in flight. */
    async disbursementClaimItems(input) {
      return claimItems(core, input);
    },
    /** The same claim, then the items' workflows started here (the run keeps no children). */
    async disbursementClaimAndStartItems(input) {
      return claimAndStartItems(core, input);
    },
    async disbursementFinalize(input) {
      return finalizeDisbursement(core, input);
    },
    async disbursementProjectionStatus(input) {
      return projectionStatus(core, input);
    },
  } satisfies DisbursementActivities;
}
