/** Surface B's claim flow over the core's claim-link payouts (one core; see each module). */
export { CLAIM_STARTED_EVENT, cancelClaimDisbursement, findClaimLink, startClaim } from './claim-start-or-cancel';
export {
  createClaimDisbursement,
  getClaimDisbursement,
  getClaimDisbursementRow,
  type ListClaimDisbursementsQuery,
  listClaimDisbursements,
} from './disbursements';
export { type ClaimEntry, type ClaimEntryInput, MIN_DISBURSEMENT_CENTS, renameCoreParam, validateClaimEntry } from './entry';
export { CLAIM_STATUSES, type ClaimStatus, claimStatusOf, claimStatusOfRow, claimStatusWhere } from './status';
export { claimDisbursementView } from './view';
export { type BatchEntryError, type ClaimBatch, type ClaimBatchInput, createClaimBatch, MAX_BATCH_ENTRIES } from './batch';
export {
  cancelCardTopup,
  type CardTopupDetail,
  type CardTopupStatus,
  type CardTopupView,
  cardTopupDetail,
  cardTopupView,
  createCardTopup,
  findCardTopupByToken,
  finishCardTopup,
  getCardTopup,
} from './card-topups';
export { sandboxIdentityChannel, submitClaimDetails } from './claim-details';
export { asksIdentity, hasClaimantIdentity, maskedClaimantIdentity } from './claimant-identity';
