/** Every workflow the worker runs; one workflow per file (DESIGN.md "Layout"). */
export {};
export { payoutWorkflow } from './payout';
