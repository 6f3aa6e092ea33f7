/** The record of every screening (docs/screening.md "Outcomes"; owner of `screenings`). */
import type { DbOrTx } from '../../db/schema';
import { newId } from '../../domain/ids';

/** What one screening recorded. */
export interface ScreeningRecord {
  /** `individual`, `entity` or `unknown`. */
  subjectKind: string;
  subjectName: string;
  outcome: string;
  hits: Record<string, unknown>[];
  listVersions: { list: string; versionId: string }[];
  reference: string | null;
  screenedAt: Date;
}

/** Inserts one screening; returns its id (`scr_...`). */
export async function recordScreening(db: DbOrTx, r: ScreeningRecord): Promise<string> {
  const id = newId('scr', r.screenedAt.getTime());
  await db
    .insertInto('screenings')
    .values({
      id,
      screened_at: r.screenedAt,
      subject_kind: r.subjectKind,
      subject_name: r.subjectName,
      outcome: r.outcome,
      hits: JSON.stringify(r.hits),
      list_versions: JSON.stringify(r.listVersions.map((v) => ({ list: v.list, version_id: v.versionId }))),
      reference: r.reference,
    })
    .execute();
  return id;
}
