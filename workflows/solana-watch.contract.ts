/** Contract of solanaWatchWorkflow (docs/getting-paid.md "Crypto deposits"). */

export const SOLANA_WATCH_WORKFLOW_TYPE = 'solanaWatchWorkflow';
export const solanaWatchWorkflowId = (environment: string) => `solanawatch:${environment}`;

export interface SolanaWatchInput {
  environment: 'live' | 'sandbox';
  pollIntervalMs: number;
}

export const SOLANA_WATCH_POLLS_PER_RUN = 200;

/** One poll (src/core/funding/crypto-watch.ts); slots as decimal strings. */
export interface SolanaWatchPollResult {
  environment: string;
  addresses: number;
  recorded: number;
  credited: number;
  dropped: number;
  pending: number;
  reachedSlot: string;
  headSlot: string;
  finalizedSlot: string;
  more: boolean;
}

/** Idempotent: every record is keyed. */
export interface SolanaWatchActivities {
  /** Records received transfers, credits finalized ones, drops vanished ones. Null: not watched (the workflow ends). */
  solanaWatchPoll(input: { environment: string }): Promise<SolanaWatchPollResult | null>;
}
