/**
 * Activities of depositWorkflow and paymentRequestWorkflow (their .contract.ts): thin adapters over
 * src/core/funding and src/core/payment-links. Idempotent (the credit posting and events are keyed by the deposit id).
 */
import type { DepositActivities } from '../workflows/deposit.contract';
import type { PaymentRequestActivities } from '../workflows/payment-request.contract';
import type { Core } from '../src/core/context';
import { creditDeposit } from '../src/core/funding/deposits';
import { expirePaymentRequest } from '../src/core/payment-links/payment-requests';

/** Builds the funding activities over the core. */
export function createFundingActivities(core: Core) {
  return {
    async depositCredit(input: { depositId: string }) {
      return creditDeposit(core, input.depositId);
    },
    async paymentRequestExpire(input: { requestId: string; clockOffsetMs?: number }) {
      return expirePaymentRequest(core, input.requestId, { clockOffsetMs: input.clockOffsetMs ?? 0 });
    },
  } satisfies DepositActivities & PaymentRequestActivities;
}
