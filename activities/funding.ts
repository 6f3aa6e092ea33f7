/**
 * Activities of depositWorkflow (workflows/deposit.contract.ts): thin adapters over
 * src/core/funding. Idempotent (the credit posting and events are keyed by the deposit id).
 */
import type { DepositActivities } from '../workflows/deposit.contract';
import type { Core } from '../src/core/context';
import { creditDeposit } from '../src/core/funding/deposits';

/** Builds the funding activities over the core. */
export function createFundingActivities(core: Core) {
  return {
    async depositCredit(input: { depositId: string }) {
      return creditDeposit(core, input.depositId);
    },
  } satisfies DepositActivities;
}
