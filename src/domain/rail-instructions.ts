/** A rail instruction's status (docs/rails.md "The seam"): queued, in a file, then the bank's answers. */
export type RailInstructionStatus = 'queued' | 'in_file' | 'accepted' | 'rejected' | 'settled' | 'returned';

const RANK: Record<RailInstructionStatus, number> = { queued: 0, in_file: 1, accepted: 2, rejected: 3, settled: 3, returned: 4 };

/** The statuses an instruction may move to `to` from: a later answer never moves it back (rejected and settled rank alike). */
export function statusesBefore(to: RailInstructionStatus): RailInstructionStatus[] {
  return (Object.keys(RANK) as RailInstructionStatus[]).filter((s) => RANK[s] < RANK[to]);
}

/** The status after an answer `to` reaches an instruction in `from`. */
export function advancedStatus(from: RailInstructionStatus, to: RailInstructionStatus): RailInstructionStatus {
  return RANK[from] < RANK[to] ? to : from;
}
