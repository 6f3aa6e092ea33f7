/** Recipient and integrator actions on a running payout (the workflow's `claim` and `cancel` Updates, through src/temporal/payout-gateway.ts). */
import { ApiError } from '../../domain/errors';
import type { PayoutStatus } from '../../domain/payout-state';
import type { ClaimMethod } from '../../../workflows/payout.contract';
import { cancelPayoutWorkflow, claimPayoutWorkflow, confirmPayeeWorkflow, type PayoutUpdateOutcome } from '../../temporal/payout-gateway';
import { awaitingPayeeConfirmation, payeeVerificationOf } from './payee-verification';
import type { Caller, Core } from '../context';
import type { Payout } from '../../domain/payouts';
import { getPayoutRow, getPayout } from './read';
import { ensureWorkflowStarted } from '../workflow-starts';

/** Runs an Update of payout `id`'s workflow, making its never-made recorded start and retrying once if refused. */
export async function runOnStartedWorkflow(core: Core, id: string, run: () => Promise<PayoutUpdateOutcome>): Promise<PayoutUpdateOutcome> {
  const outcome = await run();
  if (outcome === 'refused' && (await ensureWorkflowStarted(core, id))) return run();
  return outcome;
}

async function updatePayoutWorkflow(
  core: Core,
  caller: Caller,
  id: string,
  allowed: readonly PayoutStatus[],
  run: () => Promise<PayoutUpdateOutcome>,
): Promise<Payout> {
  const row = await getPayoutRow(core.db, caller, id);
  const refuse = (status: string) =>
    new ApiError(409, 'invalid_state', `Payout ${id} is ${status}; this needs it to be ${allowed.join(' or ')}`, null);
  if (!allowed.includes(row.status as PayoutStatus)) throw refuse(row.status);
  // Refused by the Update's validator, or the workflow closed meanwhile, or not started yet (its
  // start handed off after the accept is still queued): report the state now.
  if ((await runOnStartedWorkflow(core, id, run)) === 'refused') {
    const now = (await getPayoutRow(core.db, caller, id)).status;
    if (allowed.includes(now as PayoutStatus)) {
      throw new ApiError(409, 'invalid_state', `Payout ${id} is being changed by another request (a claim, cancel or approval in progress); retry shortly`, null);
    }
    throw refuse(now);
  }
  return getPayout(core, caller, id);
}

/**
 * Sandbox `POST /sandbox/payouts/{id}/claim`: the workflow's `claim` Update with the chosen method;
 * returns the payout after it. 404 not_found; 409 invalid_state unless awaiting its claim.
 */
export async function claimPayout(core: Core, caller: Caller, id: string, method: string): Promise<Payout> {
  return updatePayoutWorkflow(core, caller, id, ['awaiting_claim'], () => claimPayoutWorkflow(core.temporal, id, method as ClaimMethod));
}

/**
 * Cancels a pending or awaiting_claim payout, or a submitted one awaiting its payee confirmation
 * (docs/payee-verification.md), via the workflow's `cancel` Update. 404 not_found; 409 invalid_state.
 */
export async function cancelPayout(core: Core, caller: Caller, id: string): Promise<Payout> {
  const row = await getPayoutRow(core.db, caller, id);
  const payee = row.status === 'submitted' && awaitingPayeeConfirmation(row.status, await payeeVerificationOf(core, id));
  const allowed: PayoutStatus[] = payee ? ['pending', 'awaiting_claim', 'submitted'] : ['pending', 'awaiting_claim'];
  return updatePayoutWorkflow(core, caller, id, allowed, () => cancelPayoutWorkflow(core.temporal, id));
}

/**
 * `POST /payouts/{id}/confirm-payee` (Surface A; docs/payee-verification.md): the workflow's
 * `confirmPayee` Update. 404 not_found; 409 payee_confirmation_not_pending unless the payout awaits
 * a payee confirmation. Returns the payout.
 */
export async function confirmPayee(core: Core, caller: Caller, id: string): Promise<Payout> {
  const payout = await getPayoutRow(core.db, caller, id);
  const notPending = (status: string) =>
    new ApiError(409, 'payee_confirmation_not_pending', `Payout ${id} is ${status} and not awaiting a payee confirmation`, null);
  if (!awaitingPayeeConfirmation(payout.status, await payeeVerificationOf(core, id))) throw notPending(payout.status);
  const outcome = await runOnStartedWorkflow(core, id, () => confirmPayeeWorkflow(core.temporal, id, { keyId: caller.keyId }));
  if (outcome === 'refused') throw notPending((await getPayoutRow(core.db, caller, id)).status);
  return getPayout(core, caller, id);
}

/** Surface A `POST /payouts/{id}/cancel`: only a payout awaiting its payee confirmation (else 409 payee_confirmation_not_pending); 404 not_found. */
export async function cancelPayeeHold(core: Core, caller: Caller, id: string): Promise<Payout> {
  const payout = await getPayoutRow(core.db, caller, id);
  if (!awaitingPayeeConfirmation(payout.status, await payeeVerificationOf(core, id))) {
    throw new ApiError(409, 'payee_confirmation_not_pending', `Payout ${id} is ${payout.status} and not awaiting a payee confirmation`, null);
  }
  return cancelPayout(core, caller, id);
}
