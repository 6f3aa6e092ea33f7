/** Every workflow the worker runs; one workflow per file (docs/architecture.md "Workflow contracts"). */
export {};
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { payoutWorkflow } from './payout';
export { disbursementWorkflow } from './disbursement';
export { depositWorkflow } from './deposit';
export { paymentRequestWorkflow } from './payment-request';
export { railInboxWorkflow, railWindowWorkflow } from './rail-files';
export { retentionWorkflow } from './retention';
export { solanaWatchWorkflow } from './solana-watch';
export { solanaSweepWorkflow } from './solana-sweep';
