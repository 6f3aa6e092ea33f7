/** Payout rows and field limits shared by the payout use cases (src/core/payouts). */
import type { Selectable } from 'kysely';
import type { PayoutAttemptsTable, PayoutsTable } from '../../db/tables/payouts';

/** A stored payout row. Amounts: micro-USDC except destination_amount (minor units of destination_currency). */
export type PayoutRow = Selectable<PayoutsTable>;
/** A stored delivery attempt row. */
export type PayoutAttemptRow = Selectable<PayoutAttemptsTable>;

/** Largest `reference` (spec "Limits": payout reference length). */
export const MAX_REFERENCE_LENGTH = 140;
/** Largest `memo` (extension: the spec gives no limit; rails carry short remittance texts). */
export const MAX_MEMO_LENGTH = 255;
/** Largest `message` (extension: the spec gives no limit). */
export const MAX_MESSAGE_LENGTH = 500;
