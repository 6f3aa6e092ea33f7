/** Contract of solanaSweepWorkflow (docs/getting-paid.md "Sweeps"). */

export const SOLANA_SWEEP_WORKFLOW_TYPE = 'solanaSweepWorkflow';
export const solanaSweepWorkflowId = (environment: string) => `solanasweep:${environment}`;

export interface SolanaSweepInput {
  environment: 'live' | 'sandbox';
  intervalMs: number;
}

export const SOLANA_SWEEP_PASSES_PER_RUN = 100;

/** One pass (src/core/funding/crypto-sweeps.ts); amounts micro-USDC and lamports as decimal strings. */
export interface SolanaSweepPassResult {
  environment: string;
  sent: number;
  confirmed: number;
  failed: number;
  amountSent: string;
  feePayerLamports: string;
  feePayerLow: boolean;
}

/** Idempotent: recorded before sent, one sweep in flight per token account. */
export interface SolanaSweepActivities {
  /** Null: no sweeps configured (the workflow ends). */
  solanaSweepPass(input: { environment: string }): Promise<SolanaSweepPassResult | null>;
}
