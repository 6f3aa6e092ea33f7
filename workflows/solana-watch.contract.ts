/**
 * Contract of the Solana deposit watcher (workflows/solana-watch.ts; docs/getting-paid.md "Crypto
 * deposits"): type name, id, input, and the activity it proxies (activities/solana.ts).
 */

/** Workflow type of the watcher of one environment's Solana network. */
export const SOLANA_WATCH_WORKFLOW_TYPE = 'solanaWatchWorkflow';
/** Workflow id of the watcher of `environment` (one per environment and namespace). */
export const solanaWatchWorkflowId = (environment: string) => `solanawatch:${environment}`;

/** Argument of solanaWatchWorkflow. */
export interface SolanaWatchInput {
  environment: 'live' | 'sandbox';
  /** Interval between polls, ms. */
  pollIntervalMs: number;
}

/** Polls per run before the workflow continues as new (keeps its history small). */
export const SOLANA_WATCH_POLLS_PER_RUN = 200;

/** What one poll did (src/core/funding/crypto-watch.ts SolanaPollResult; slots as decimal strings). */
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

/** The watcher's activity. Idempotent: every record is keyed (see src/core/funding/crypto-watch.ts). */
export interface SolanaWatchActivities {
  /**
   * One poll: records new transfers to the deposit addresses (received at confirmed), credits the
   * finalized ones, drops the ones gone before finality. Null: the environment is not watched
   * (configuration changed): the workflow ends.
   */
  solanaWatchPoll(input: { environment: string }): Promise<SolanaWatchPollResult | null>;
}
