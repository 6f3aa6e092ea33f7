/** Every workflow the worker runs; one workflow per file (DESIGN.md "Layout"). */
export {};
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { payoutWorkflow } from './payout';
export { disbursementWorkflow } from './disbursement';
export { depositWorkflow } from './deposit';
export { paymentRequestWorkflow } from './payment-request';
