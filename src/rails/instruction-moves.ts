import type { RailInstructionStatus } from '../domain/rail-instructions';
import type { RailStore } from './adapter';

/** One answer's move of an instruction (payout, attempt) to `to`. */
export interface InstructionMove {
  key: { payoutId: string; attempt: number };
  to: RailInstructionStatus;
}

/** A bank file's moves in file order: one statement per run of one status; none moves an instruction back. */
export async function advanceInRuns(store: RailStore, moves: InstructionMove[], now: Date): Promise<void> {
  for (let i = 0; i < moves.length; ) {
    const to = moves[i]!.to;
    const keys: InstructionMove['key'][] = [];
    for (; i < moves.length && moves[i]!.to === to; i++) keys.push(moves[i]!.key);
    await store.advanceInstructions(keys, to, now);
  }
}
