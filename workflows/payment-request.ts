/**
 * paymentRequestWorkflow: the expiry of one payment request as a durable timer (not a sweep;
 * docs/getting-paid.md "Payment requests"). Workflow id = request id, started through the
 * workflow-start outbox in the transaction that creates the request. It waits until `expiresAt`
 * or the `paid` signal (sent by the deposit workflow that matched it), whichever comes first; at
 * expiry its activity moves the request open -> expired unless a deposit paid it meanwhile (the
 * guarded UPDATE decides, so a payment and the timer never both win).
 */
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

/** Waits for payment or expiry (see the file header). */
export async function paymentRequestWorkflow(input: PaymentRequestWorkflowInput): Promise<PaymentRequestWorkflowResult> {
  /** The business's test clock (sandbox; docs/test-clocks.md): the expiry follows it. */
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
      // Woken by a test-clock advance that has not reached the expiry: wait for the rest.
      if (clock.version() !== v && expiresAt - clock.now() > 0) continue;
    }
    const offsetMs = clock.now() - Date.now();
    const r = await acts.paymentRequestExpire({ requestId: input.requestId, ...(offsetMs > 0 ? { clockOffsetMs: offsetMs } : {}) });
    if (r.status !== 'open') {
      status = r.status;
      return { requestId: input.requestId, status };
    }
    // The database clock says not yet: wait the rest (a durable timer again).
    await sleep(Math.max(r.retryInMs ?? 1000, 100));
  }
}
