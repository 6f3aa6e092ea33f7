/**
 * depositWorkflow (docs/getting-paid.md): the row is written `received` in the transaction that
 * records this start, so a deposit is never left uncredited; `depositCredit` is idempotent.
 */
import { getExternalWorkflowHandle, proxyActivities, setHandler } from '@temporalio/workflow';
import type { DepositStatus } from '../src/domain/funding';
import { type DepositActivities, type DepositCreditResult, type DepositWorkflowInput, depositStatusQuery } from './deposit.contract';
import { paymentRequestPaidSignal } from './payment-request.contract';

const acts = proxyActivities<DepositActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function depositWorkflow(input: DepositWorkflowInput): Promise<DepositCreditResult> {
  let status: DepositStatus = 'received';
  setHandler(depositStatusQuery, () => status);
  const result = await acts.depositCredit({ depositId: input.depositId });
  status = result.status;
  if (result.paymentRequestId) {
    // Best effort: the request row is already paid; a later timer finds it paid.
    try {
      await getExternalWorkflowHandle(result.paymentRequestId).signal(paymentRequestPaidSignal);
    } catch {
    }
  }
  return result;
}
