import type { Generated, JSONColumnType } from 'kysely';
import type { ListEntry } from '../../screening/entry';
import type { Environment } from './platform';

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

/** A payout held for an operator's decision (docs/screening.md "Holding payouts"). Written only by src/core/screening/cases.ts. */
export interface ScreeningCasesTable {
  id: string;
  business_id: string;
  environment: Environment;
  /** `payout`. */
  subject_type: string;
  subject_id: string;
  /** `sanctions` or `name_mismatch`. */
  kind: string;
  screening_id: string | null;
  /** The best hits (list, entry id and name, matched name, score, reason). */
  hits: JSONColumnType<Record<string, unknown>[], string, string>;
  /** One line for the queue: why the case was opened. */
  summary: string;
  /** `open`, `in_review`, `released` or `rejected`. */
  status: string;
  opened_at: Date;
  reviewer: string | null;
  reviewed_at: Date | null;
  decided_by: string | null;
  decided_at: Date | null;
  decision_reason: string | null;
}

export interface ScreeningTables {
  screening_list_versions: ScreeningListVersionsTable;
  screenings: ScreeningsTable;
  screening_cases: ScreeningCasesTable;
}
