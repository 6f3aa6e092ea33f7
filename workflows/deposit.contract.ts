/** Contract of depositWorkflow (docs/getting-paid.md). */
import { defineQuery } from '@temporalio/workflow';
import type { DepositMatchResult, DepositStatus } from '../src/domain/funding';

/** Workflow id = the deposit id (`dep_…`). */
export const DEPOSIT_WORKFLOW_TYPE = 'depositWorkflow';

export interface DepositWorkflowInput {
  depositId: string;
}

export interface DepositCreditResult {
  depositId: string;
  status: DepositStatus;
  paymentRequestId: string | null;
  match: DepositMatchResult | null;
}

export const depositStatusQuery = defineQuery<DepositStatus>('status');

export interface DepositActivities {
  /** One transaction, idempotent: posting `deposit:{id}:credit` (net micro-USDC), request matching, events. */
  depositCredit(input: { depositId: string }): Promise<DepositCreditResult>;
}
