/** paymentRequestWorkflow (docs/getting-paid.md "Payment requests"): a durable expiry timer; the guarded UPDATE decides paid vs expired. */
import { condition, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { PaymentRequestStatus } from '../src/domain/funding';
import {
  type PaymentRequestActivities,
  paymentRequestPaidSignal,
  paymentRequestStatusQuery,
  type PaymentRequestWorkflowInput,
  type PaymentRequestWorkflowResult,
} from './payment-request.contract';
import { installTestClock } from './shared/test-clock';

const acts = proxyActivities<PaymentRequestActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function paymentRequestWorkflow(input: PaymentRequestWorkflowInput): Promise<PaymentRequestWorkflowResult> {
  const clock = installTestClock();
  let status: PaymentRequestStatus = 'open';
  let paid = false;
  setHandler(paymentRequestPaidSignal, () => {
    paid = true;
  });
  setHandler(paymentRequestStatusQuery, () => status);
  const expiresAt = Date.parse(input.expiresAt);
  for (;;) {
    const remaining = expiresAt - clock.now();
    if (remaining > 0) {
      const v = clock.version();
      await condition(() => paid || clock.version() !== v, remaining);
      if (paid) {
        status = 'paid';
        return { requestId: input.requestId, status };
      }
      if (clock.version() !== v && expiresAt - clock.now() > 0) continue;
    }
    const offsetMs = clock.now() - Date.now();
    const r = await acts.paymentRequestExpire({ requestId: input.requestId, ...(offsetMs > 0 ? { clockOffsetMs: offsetMs } : {}) });
    if (r.status !== 'open') {
      status = r.status;
      return { requestId: input.requestId, status };
    }
    await sleep(Math.max(r.retryInMs ?? 1000, 100));
  }
}
