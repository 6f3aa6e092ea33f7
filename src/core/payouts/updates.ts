/** Recipient and integrator actions on a running payout (the workflow's `claim` and `cancel` Updates, through src/temporal/payout-gateway.ts). */
import { ApiError } from '../../domain/errors';
import type { PayoutStatus } from '../../domain/payout-state';
import type { ClaimMethod } from '../../../workflows/payout.contract';
import { cancelPayoutWorkflow, claimPayoutWorkflow, type PayoutUpdateOutcome } from '../../temporal/payout-gateway';
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

/** Cancels a pending or awaiting_claim payout via the workflow's `cancel` Update. 404 not_found; 409 invalid_state. */
export async function cancelPayout(core: Core, caller: Caller, id: string): Promise<Payout> {
  return updatePayoutWorkflow(core, caller, id, ['pending', 'awaiting_claim'], () => cancelPayoutWorkflow(core.temporal, id));
}
