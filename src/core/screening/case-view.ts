/** Reading screening cases (docs/screening.md "Holding payouts"): the case of a payout as the payout shows it. Reads only; src/core/screening/cases.ts writes. */
import { type Selectable, sql } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { ScreeningCasesTable } from '../../db/tables/screening';
import type { PayoutScreening } from '../../domain/payouts';

/** A stored case row. */
export type ScreeningCaseRow = Selectable<ScreeningCasesTable>;

const HELD_REASON: Record<string, string> = {
  sanctions: 'The recipient is held for a sanctions screening review.',
  name_mismatch: "The claimant's name differs from the account holder's; held for review.",
};

/** The payout's view of a case row. */
export function payoutScreeningOf(row: Pick<ScreeningCaseRow, 'id' | 'kind' | 'status' | 'decision_reason'>): PayoutScreening {
  const decided = row.status === 'released' || row.status === 'rejected';
  return {
    status: decided ? (row.status as 'released' | 'rejected') : 'in_review',
    caseId: row.id,
    reason: decided ? row.decision_reason : (HELD_REASON[row.kind] ?? null),
  };
}

/** The screening of each payout in `payoutIds` that has a case (one indexed read). */
export async function payoutScreenings(db: DbOrTx, payoutIds: readonly string[]): Promise<Map<string, PayoutScreening>> {
  if (payoutIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('screening_cases')
    .select(['id', 'subject_id', 'kind', 'status', 'decision_reason'])
    .where('subject_type', '=', 'payout')
    .where('subject_id', 'in', [...payoutIds])
    .execute();
  return new Map(rows.map((r) => [r.subject_id, payoutScreeningOf(r)]));
}

/** The columns {@link payoutScreeningOf} reads, as one JSON value per payout row of a list (a correlated subquery on the case index, so a page costs no second round trip); null without a case. */
export const screeningCaseColumn = () =>
  sql<Pick<ScreeningCaseRow, 'id' | 'kind' | 'status' | 'decision_reason'> | null>`(select json_build_object('id', sc.id, 'kind', sc.kind, 'status', sc.status, 'decision_reason', sc.decision_reason) from screening_cases sc where sc.subject_type = 'payout' and sc.subject_id = payouts.id)`.as(
    'screening_case',
  );
