/**
 * Contract of the sweeps to the treasury (workflows/solana-sweep.ts; docs/getting-paid.md
 * "Sweeps"): type name, id, input, and the activity it proxies (activities/solana.ts).
 */

/** Workflow type of the sweeper of one environment. */
export const SOLANA_SWEEP_WORKFLOW_TYPE = 'solanaSweepWorkflow';
/** Workflow id of the sweeper of `environment`. */
export const solanaSweepWorkflowId = (environment: string) => `solanasweep:${environment}`;

/** Argument of solanaSweepWorkflow. */
export interface SolanaSweepInput {
  environment: 'live' | 'sandbox';
  /** Interval between sweep passes, ms. */
  intervalMs: number;
}

/** Passes per run before the workflow continues as new. */
export const SOLANA_SWEEP_PASSES_PER_RUN = 100;

/** What one pass did (src/core/funding/crypto-sweeps.ts SolanaSweepResult; amounts micro-USDC, lamports, as decimal strings). */
export interface SolanaSweepPassResult {
  environment: string;
  sent: number;
  confirmed: number;
  failed: number;
  amountSent: string;
  feePayerLamports: string;
  feePayerLow: boolean;
}

/** The sweeper's activity. Idempotent (recorded before sent; one sweep in flight per token account). */
export interface SolanaSweepActivities {
  /** One pass: settles sweeps in flight, sends new ones for credited, unswept USDC. Null: no sweeps configured (the workflow ends). */
  solanaSweepPass(input: { environment: string }): Promise<SolanaSweepPassResult | null>;
}
