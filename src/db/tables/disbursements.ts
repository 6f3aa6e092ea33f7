/** Disbursement tables (issue 4) are declared here. */
// biome-ignore lint/complexity/noBannedTypes: filled in by the disbursements change
export type DisbursementTables = {};
