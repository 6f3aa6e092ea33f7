import type { Environment } from './platform';

/** A saved recipient's last screening (docs/screening.md "Saved recipients"). Written only by src/core/screening/recipient-screening.ts. */
export interface RecipientScreeningsTable {
  recipient_id: string;
  business_id: string;
  environment: Environment;
  screening_id: string;
  /** `clear`, `potential_match` or `unavailable` (a confirmed match is never saved). */
  outcome: string;
  /** The list versions used, `list:version_id` sorted and comma-joined. */
  versions_key: string;
  screened_at: Date;
}

export interface RecipientScreeningTables {
  recipient_screenings: RecipientScreeningsTable;
}
