/**
 * depositWorkflow: the durable lifecycle of one deposit (docs/getting-paid.md, src/domain/funding.ts
 * "Deposit statuses"). Workflow id = deposit id. The deposit row is written `received` (event
 * deposit.received) in the transaction that records this workflow's start (workflow-start outbox),
 * so a deposit is never left uncredited: if the process dies after commit, the relay starts it.
 * The one step, `depositCredit`, is idempotent (ledger posting keyed by the deposit id) and retried
 * until it succeeds; then the deposit is `credited`. When it paid a payment request, the request's
 * workflow gets the `paid` signal (workflows/payment-request.contract.ts).
 */
import { getExternalWorkflowHandle, proxyActivities, setHandler } from '@temporalio/workflow';
import type { DepositStatus } from '../src/domain/funding';
import { type DepositActivities, type DepositCreditResult, type DepositWorkflowInput, depositStatusQuery } from './deposit.contract';
import { paymentRequestPaidSignal } from './payment-request.contract';

const acts = proxyActivities<DepositActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Credits one deposit (see the file header). */
export async function depositWorkflow(input: DepositWorkflowInput): Promise<DepositCreditResult> {
  let status: DepositStatus = 'received';
  setHandler(depositStatusQuery, () => status);
  const result = await acts.depositCredit({ depositId: input.depositId });
  status = result.status;
  if (result.paymentRequestId) {
    // Ends the request's expiry timer early. Best effort: the request row is already paid (the
    // credit step decided), and a timer that fires later finds it paid and changes nothing.
    try {
      await getExternalWorkflowHandle(result.paymentRequestId).signal(paymentRequestPaidSignal);
    } catch {
      // the request's workflow already finished or was never started: nothing to end
    }
  }
  return result;
}
