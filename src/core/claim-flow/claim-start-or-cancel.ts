/**
 * The two moves of a pending Surface B disbursement that exclude each other (spec "Disbursement
 * status (Surface B)": pending -> claimed when the recipient starts the claim flow; pending ->
 * cancelled by DELETE, refused with disbursement_already_claimed once claimed).
 *
 * Both are single conditional UPDATEs on the payout row, so whichever commits first wins: a claim
 * start needs `cancel_requested_at is null`, a cancel needs `claim_started_at is null`. The cancel
 * itself is then the payout workflow's `cancel` Update (core cancelPayout: canceled, hold released,
 * event payout.canceled -> disbursement.cancelled).
 */
import { ApiError } from '../../domain/errors';
import type { Caller, Core } from '../context';
import { emitEvent } from '../events';
import { cancelPayout, payoutFromRow, type PayoutRow } from '../payouts';
import { payoutStatusEvent } from '../../domain/domain-events';
import { clearCancelRequested, markCancelRequested, markClaimStarted } from '../payouts/transitions';
import { getClaimDisbursementRow } from './disbursements';
import { claimStatusOfRow } from './status';
import { claimDisbursementView } from './view';
import type { ClaimDisbursement } from '../../domain/claim-disbursements';
import type { ClaimLink } from '../../domain/claim-links';

/** Core event type of a claim start (Surface B `disbursement.claimed`; Surface A does not receive it). */
export const CLAIM_STARTED_EVENT = 'payout.claim_started';

const claimLinkOf = (row: PayoutRow, publicUrl: string): ClaimLink => ({
  payout: payoutFromRow(row, publicUrl),
  businessId: row.business_id,
  environment: row.environment,
  claimStartedAt: row.claim_started_at,
  cancelRequestedAt: row.cancel_requested_at,
});

/** The claim link of `token` (the claim page's credential), or undefined for an unknown token. */
export async function findClaimLink(core: Core, token: string): Promise<ClaimLink | undefined> {
  const row = await core.db.selectFrom('payouts').selectAll().where('claim_token', '=', token).executeTakeFirst();
  return row && claimLinkOf(row, core.config.publicUrl);
}

/**
 * The recipient starts the claim flow on the claim page (`token` is the claim link's token): sets
 * `claim_started_at` and emits {@link CLAIM_STARTED_EVENT} (dedupe `payout:{id}:claim_started`) in
 * one transaction, if the payout awaits its claim and no cancel is under way. Idempotent: a second
 * start changes nothing. Returns the claim link after the attempt, or undefined for an unknown token.
 */
export async function startClaim(core: Core, token: string): Promise<ClaimLink | undefined> {
  return core.db.transaction().execute(async (tx) => {
    const now = core.now();
    const updated = await markClaimStarted(tx, token, now);
    if (updated) {
      const link = claimLinkOf(updated, core.config.publicUrl);
      await emitEvent(tx, payoutStatusEvent({ businessId: link.businessId, environment: link.environment }, CLAIM_STARTED_EVENT, link.payout, 'claim_started'));
      return link;
    }
    const row = await tx.selectFrom('payouts').selectAll().where('claim_token', '=', token).executeTakeFirst();
    return row && claimLinkOf(row, core.config.publicUrl);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `DELETE /disbursements/:id`: cancels a pending disbursement. Marks the cancel (refused once the
 * claim started), waits up to `openWaitMs` for a just-created payout to open its claim (core
 * submitted -> awaiting_claim takes one workflow step), then runs the core cancel. Returns the row
 * the disbursement after the cancel (status cancelled, funds returned).
 * Throws 404 not_found; 409 `disbursement_already_claimed` once the recipient started the claim
 * (or claimed, or it is being delivered or was delivered); 409 `invalid_state` when it already
 * ended otherwise (expired, failed, cancelled).
 */
export async function cancelClaimDisbursement(core: Core, caller: Caller, id: string, openWaitMs = 10_000): Promise<ClaimDisbursement> {
  const view = (r: PayoutRow) => claimDisbursementView(r, core.config.publicUrl);
  const row = await getClaimDisbursementRow(core, caller, id);
  const refuse = (r: PayoutRow) => {
    const s = claimStatusOfRow(r);
    if (s === 'claimed' || s === 'processing' || s === 'delivered') {
      return new ApiError(409, 'disbursement_already_claimed', `Disbursement ${id} is ${s}: the recipient already claimed it; it can no longer be cancelled`, 'id');
    }
    return new ApiError(409, 'invalid_state', `Disbursement ${id} is ${s}; only a pending disbursement can be cancelled`, 'id');
  };
  if (row.status === 'canceled') return view(row);
  if (claimStatusOfRow(row) !== 'pending') throw refuse(row);

  const now = core.now();
  if (!(await markCancelRequested(core.db, id, now))) throw refuse(await getClaimDisbursementRow(core, caller, id));

  try {
    // A payout accepted a moment ago is `submitted` until its workflow opens the claim.
    const deadline = Date.now() + openWaitMs;
    let current = await getClaimDisbursementRow(core, caller, id);
    while (current.status === 'submitted' && Date.now() < deadline) {
      await sleep(50);
      current = await getClaimDisbursementRow(core, caller, id);
    }
    await cancelPayout(core, caller, id);
  } catch (err) {
    // Not cancelled (expired meanwhile, Temporal unreachable): let a claim start again.
    await clearCancelRequested(core.db, id);
    const after = await getClaimDisbursementRow(core, caller, id);
    if (after.status === 'canceled') return view(after);
    if (err instanceof ApiError && err.status === 409) throw refuse(after);
    throw err;
  }
  return view(await getClaimDisbursementRow(core, caller, id));
}
