/** Activities of depositWorkflow and paymentRequestWorkflow; idempotent (keyed by the deposit id). */
import type { DepositActivities } from '../workflows/deposit.contract';
import type { PaymentRequestActivities } from '../workflows/payment-request.contract';
import type { Core } from '../src/core/context';
import { creditDeposit } from '../src/core/funding/deposits';
import { expirePaymentRequest } from '../src/core/payment-links/payment-requests';

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
