/**
 * Activities of disbursementWorkflow (contract: workflows/disbursement.contract.ts): storage only
 * (src/core/disbursements). Each is one transaction and idempotent, so Temporal's retries are safe:
 * a claim is keyed by its number (a retried claim returns what it already claimed), postings and
 * events are keyed.
 */
import type { Core } from '../src/core/context';
import { claimItems, finalizeDisbursement, projectionStatus } from '../src/core/disbursements';
import type { DisbursementActivities } from '../workflows/disbursement.contract';

export type { DisbursementActivities };

/** Builds the disbursement activities over the core. */
export function createDisbursementActivities(core: Core) {
  return {
    /**
     * Claim `claimSeq`: up to `limit` pending items become payouts of their current attempt
     * (funding 'batch', no workflow start), keeping at most `window` of the batch's payouts in
     * flight; returns their child starts, `paused`, `more` and `full`.
     */
    async disbursementClaimItems(input) {
      return claimItems(core, input);
    },
    /** Completes the disbursement when every item is final (event included); else reports what is left. */
    async disbursementFinalize(input) {
      return finalizeDisbursement(core, input);
    },
    /** The projection's status (processing, paused, ...). */
    async disbursementProjectionStatus(input) {
      return projectionStatus(core, input);
    },
  } satisfies DisbursementActivities;
}
