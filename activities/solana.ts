/** Activities of the Solana workflows over src/core/funding (keyed records). */
import { Context } from '@temporalio/activity';
import type { Core } from '../src/core/context';
import { sweepSolanaDeposits } from '../src/core/funding/crypto-sweeps';
import { pollSolanaDeposits } from '../src/core/funding/crypto-watch';
import type { SolanaSweepActivities } from '../workflows/solana-sweep.contract';
import type { SolanaWatchActivities } from '../workflows/solana-watch.contract';

function heartbeat() {
  try {
    Context.current().heartbeat();
  } catch {
  }
}

export function createSolanaActivities(core: Core) {
  return {
    async solanaWatchPoll(input: { environment: string }) {
      return pollSolanaDeposits(core, input.environment, { heartbeat });
    },
    async solanaSweepPass(input: { environment: string }) {
      return sweepSolanaDeposits(core, input.environment);
    },
  } satisfies SolanaWatchActivities & SolanaSweepActivities;
}
