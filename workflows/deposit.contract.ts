/**
 * Contract of depositWorkflow (workflows/deposit.ts): type name, input/result, query, and the
 * activities it proxies. Core, activities and src/temporal import this module, never the body.
 */
import { defineQuery } from '@temporalio/workflow';
import type { DepositMatchResult, DepositStatus } from '../src/domain/funding';

/** Workflow type name (workflow_starts.workflow_type). Workflow id = the deposit id (`dep_…`). */
export const DEPOSIT_WORKFLOW_TYPE = 'depositWorkflow';

/** Argument of depositWorkflow: the deposit id only. */
export interface DepositWorkflowInput {
  depositId: string;
}

/** What the credit step did (also the workflow's result). */
export interface DepositCreditResult {
  depositId: string;
  status: DepositStatus;
  /** The payment request the deposit paid, or null (plain deposit). */
  paymentRequestId: string | null;
  match: DepositMatchResult | null;
}

/** Query `status`: received until the credit step committed, then credited. */
export const depositStatusQuery = defineQuery<DepositStatus>('status');

/** Activities depositWorkflow proxies (activities/funding.ts builds them with `satisfies`). */
export interface DepositActivities {
  /**
   * One transaction, idempotent: the ledger posting `deposit:{id}:credit` (external -> available,
   * net micro-USDC), payment request matching, status credited, events deposit.credited and (on a
   * match) payment_request.paid. A second call returns the first result.
   */
  depositCredit(input: { depositId: string }): Promise<DepositCreditResult>;
}
