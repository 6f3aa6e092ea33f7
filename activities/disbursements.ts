/**
 * Activities of disbursementWorkflow (workflows/disbursement.ts): storage only (src/core/disbursements.ts).
 * Each is one transaction and idempotent, so Temporal's retries are safe: a claim is keyed by its
 * number (a retried claim returns what it already claimed), postings and events are keyed.
 */
import type { Core } from '../src/core/context';
import { type ClaimResult, claimItems, type FinalizeResult, finalizeDisbursement, projectionStatus } from '../src/core/disbursements';

/** Builds the disbursement activities over the core. */
export function createDisbursementActivities(core: Core) {
  return {
    /**
     * Claim `claimSeq`: up to `limit` pending items become payouts of their current attempt
     * (funding 'batch', no workflow start), keeping at most `window` of the batch's payouts in
     * flight; returns their child starts, `paused`, `more` and `full`.
     */
    async disbursementClaimItems(input: { disbursementId: string; claimSeq: number; limit: number; window?: number }): Promise<ClaimResult> {
      return claimItems(core, input);
    },
    /** Completes the disbursement when every item is final (event included); else reports what is left. */
    async disbursementFinalize(input: { disbursementId: string }): Promise<FinalizeResult> {
      return finalizeDisbursement(core, input);
    },
    /** The projection's status (processing, paused, ...). */
    async disbursementProjectionStatus(input: { disbursementId: string }): Promise<string> {
      return projectionStatus(core, input);
    },
  };
}

/** The activity interface disbursementWorkflow proxies. */
export type DisbursementActivities = ReturnType<typeof createDisbursementActivities>;
