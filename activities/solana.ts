/** Activities of the Solana workflows over src/core/funding (keyed records). */
import { Context } from '@temporalio/activity';
import type { Core } from '../src/core/context';
import type { SolanaSweepActivities } from '../workflows/solana-sweep.contract';
import type { SolanaWatchActivities } from '../workflows/solana-watch.contract';

function heartbeat() {
  try {
    Context.current().heartbeat();
  } catch {
  }
}

/**
 * Builds the Solana activities over the core. Their modules (and @solana/kit) are loaded at the
 * first call, so a worker with no Solana network configured never loads them (docs/operations.md "Idle cost").
 */
export function createSolanaActivities(core: Core) {
  return {
    async solanaWatchPoll(input: { environment: string }) {
      const { pollSolanaDeposits } = await import('../src/core/funding/crypto-watch');
      return pollSolanaDeposits(core, input.environment, { heartbeat });
    },
    async solanaSweepPass(input: { environment: string }) {
      const { sweepSolanaDeposits } = await import('../src/core/funding/crypto-sweeps');
      return sweepSolanaDeposits(core, input.environment);
    },
  } satisfies SolanaWatchActivities & SolanaSweepActivities;
}
