/** Disbursement rows, limits and small value helpers shared by the disbursement use cases (src/core/disbursements). */
import { formatAmount, USDC } from '../../domain/money';
import type { Selectable } from 'kysely';
import type { DisbursementItemsTable, DisbursementsTable } from '../../db/tables/disbursements';

/** Largest number of items in one disbursement (spec "Limits": up to 5,000). */
export const MAX_ITEMS = 5000;
/** Largest name. */
export const MAX_NAME_LENGTH = 200;
/** Largest CSV file accepted by the import, in bytes (413 payload_too_large above). */
export const MAX_CSV_BYTES = 5 * 1024 * 1024;
/** Rows per INSERT statement (keeps each statement well under PostgreSQL's 65,535 parameters). */
export const INSERT_CHUNK = 500;

/** A stored disbursement row. */
export type DisbursementRow = Selectable<DisbursementsTable>;
/** A stored item row. */
export type DisbursementItemRow = Selectable<DisbursementItemsTable>;

/** A string value, or null for anything else (items as given are untyped JSON). */
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** A timestamp as ISO 8601 UTC, or null. */
export const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);
/** Micro-USDC (bigint) as a USDC decimal string. */
export const usdc = (v: bigint) => formatAmount(v, USDC);
