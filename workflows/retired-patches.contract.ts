/** The workflow patches retired early as `deprecatePatch` (docs/operations.md "Retiring a workflow patch"). */
import { DISBURSEMENT_WORKFLOW_TYPE } from './disbursement.contract';
import { PAYOUT_WORKFLOW_TYPE } from './payout.contract';

/**
 * A patch moved from `patched()` to `deprecatePatch()`: an open run of `workflowType` started before
 * `startedBefore` may lack its marker and fail on replay. Dates are `YYYY-MM-DD` (UTC);
 * `safeAfter` is the calendar retirement date (landed plus 60 days), from which no such run is open.
 */
export interface RetiredPatch {
  workflowType: string;
  patchId: string;
  deprecatedOn: string;
  safeAfter: string;
  /** RFC 3339: the commit that introduced the patch (`git log -S'<patchId>' --format=%cI --reverse | head -1`). */
  startedBefore: string;
}

export const RETIRED_PATCHES: readonly RetiredPatch[] = [
  {
    workflowType: PAYOUT_WORKFLOW_TYPE,
    patchId: 'test-clock-deadline-from-real-time',
    deprecatedOn: '2026-11-29',
    safeAfter: '2027-01-24',
    startedBefore: '2026-11-25T10:59:23Z',
  },
  {
    workflowType: DISBURSEMENT_WORKFLOW_TYPE,
    patchId: 'disbursement-claim-cadence',
    deprecatedOn: '2026-11-29',
    safeAfter: '2027-01-25',
    startedBefore: '2026-11-26T22:37:54Z',
  },
  {
    workflowType: DISBURSEMENT_WORKFLOW_TYPE,
    patchId: '39-child-status-upserts',
    deprecatedOn: '2026-11-29',
    safeAfter: '2027-01-26',
    startedBefore: '2026-11-27T09:54:45Z',
  },
  {
    workflowType: DISBURSEMENT_WORKFLOW_TYPE,
    patchId: '39-longer-runs',
    deprecatedOn: '2026-11-29',
    safeAfter: '2027-01-26',
    startedBefore: '2026-11-27T13:07:53Z',
  },
];
