import type { Generated, JSONColumnType } from 'kysely';
import type { ListEntry } from '../../screening/entry';

/** One loaded version of a sanctions list, written only by src/core/screening/lists.ts (docs/screening.md "Versions and refresh"). */
export interface ScreeningListVersionsTable {
  id: string;
  list: string;
  sha256: string;
  published_at: Date | null;
  source: string;
  entry_count: number;
  entries: JSONColumnType<ListEntry[], string, string>;
  loaded_at: Generated<Date>;
  /** Last time a fetch returned this same content: the list's age runs from here (docs/screening.md "Fail closed"). */
  checked_at: Date;
}

/** One screening and the list versions it used (docs/screening.md "Outcomes"). Written only by src/core/screening/screenings.ts. */
export interface ScreeningsTable {
  id: string;
  screened_at: Generated<Date>;
  subject_kind: string;
  subject_name: string;
  outcome: string;
  hits: JSONColumnType<Record<string, unknown>[], string, string>;
  list_versions: JSONColumnType<{ list: string; version_id: string }[], string, string>;
  /** What was screened for the caller (`po_...`, `rcp_...`), if it said. */
  reference: string | null;
}

export interface ScreeningTables {
  screening_list_versions: ScreeningListVersionsTable;
  screenings: ScreeningsTable;
}
