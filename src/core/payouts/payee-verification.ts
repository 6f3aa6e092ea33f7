/**
 * Verification of Payee on sepa_eur (docs/payee-verification.md): asks the payout's rail once per
 * payout, records the answer in `payee_verifications` (this module owns its writes) and the
 * business's decision on a close match or no match.
 */
import type { PayeeVerificationStep } from '../../../workflows/payout.contract';
import { parseDuration } from '../../domain/durations';
import { payeeConfirmationRequiredEvent } from '../../domain/domain-events';
import type { PayeeVerificationsTable } from '../../db/tables/payouts';
import type { Core } from '../context';
import { emitEvent } from '../events';
import { railAdapterFor } from '../rails/rail-adapters';
import { payeeVerificationView, payoutFromRow } from './read';

/** The one channel verified (EU Regulation 2024/886 covers euro credit transfers). */
export const PAYEE_VERIFIED_CHANNEL = 'sepa_eur';
/** How long after an `unavailable` answer the workflow asks again, in ms. */
export const PAYEE_RETRY_AFTER_MS = 60_000;

/** The verification row of a payout, or undefined. */
export function payeeVerificationOf(core: Pick<Core, 'db'>, payoutId: string): Promise<PayeeVerificationsTable | undefined> {
  return core.db.selectFrom('payee_verifications').selectAll().where('payout_id', '=', payoutId).executeTakeFirst() as Promise<PayeeVerificationsTable | undefined>;
}

function stepOf(core: Core, row: PayeeVerificationsTable): PayeeVerificationStep {
  if (row.result === 'match') return { outcome: 'match' };
  if (row.result === 'not_possible') return { outcome: 'not_possible' };
  const left = row.confirm_by ? row.confirm_by.getTime() - core.now().getTime() : 0;
  return { outcome: 'confirm', result: row.result as 'close_match' | 'no_match', confirmWithinMs: Math.max(0, left) };
}

/** Whether `payout` is verified at all: sepa_eur, not a claim link, and a disbursement item only when its business verifies batches. */
async function needsVerification(core: Core, payout: { channel: string; disbursement_id: string | null; business_id: string }): Promise<boolean> {
  // A claim link (channel `claim_link`, even once claimed to an IBAN) is never verified: the recipient typed the account.
  if (payout.channel !== PAYEE_VERIFIED_CHANNEL) return false;
  if (!payout.disbursement_id) return true;
  const business = await core.db.selectFrom('businesses').select('verify_payee_batches').where('id', '=', payout.business_id).executeTakeFirst();
  return business?.verify_payee_batches ?? true;
}

/**
 * Asks the payout's rail for a Verification of Payee, or returns the answer already recorded
 * (idempotent per payout). `skipped` for other channels, claim links, opted-out batches and rails
 * without the capability; `unavailable` (asked again after `retryAfterMs`) when the bank is late.
 * A close match or no match emits `payout.payee_confirmation_required` once.
 */
export async function verifyPayee(core: Core, payoutId: string): Promise<PayeeVerificationStep> {
  const payout = await core.db.selectFrom('payouts').selectAll().where('id', '=', payoutId).executeTakeFirstOrThrow();
  if (payout.channel !== PAYEE_VERIFIED_CHANNEL) return { outcome: 'skipped' }; // one statement for every other payout
  const recorded = await payeeVerificationOf(core, payoutId);
  if (recorded) return stepOf(core, recorded);
  if (!(await needsVerification(core, payout))) return { outcome: 'skipped' };
  const adapter = railAdapterFor(core, payout.environment, payout.rail);
  if (!adapter?.verifyPayee) return { outcome: 'skipped' };
  const details = payout.recipient_details as Record<string, unknown>;
  const requestedAt = core.now();
  const answer = await adapter.verifyPayee({
    payoutId,
    environment: payout.environment,
    businessId: payout.business_id,
    amountMinor: payout.destination_amount.toString(),
    creditor: {
      name: String(details.holder_name ?? details.name ?? ''),
      kind: details.recipient_kind === 'business' ? 'business' : 'individual',
      country: typeof details.country === 'string' ? details.country : null,
      account: Object.fromEntries(Object.entries(details).filter((e): e is [string, string] => typeof e[1] === 'string')),
    },
  });
  if (answer.result === 'unavailable') return { outcome: 'unavailable', retryAfterMs: PAYEE_RETRY_AFTER_MS };
  const answeredAt = core.now();
  const needsConfirmation = answer.result === 'close_match' || answer.result === 'no_match';
  const confirmBy = needsConfirmation ? new Date(answeredAt.getTime() + parseDuration(core.config.PAYEE_CONFIRMATION_WINDOW)) : null;
  await core.db.transaction().execute(async (tx) => {
    const inserted = await tx
      .insertInto('payee_verifications')
      .values({
        payout_id: payoutId,
        business_id: payout.business_id,
        environment: payout.environment,
        result: answer.result,
        name_returned: answer.nameReturned,
        reason_code: answer.reasonCode,
        requested_at: requestedAt,
        answered_at: answeredAt,
        confirm_by: confirmBy,
        decision: null,
        decided_by: null,
        decided_at: null,
      })
      .onConflict((oc) => oc.column('payout_id').doNothing())
      .returning('payout_id')
      .executeTakeFirst();
    if (needsConfirmation && inserted) {
      const row = await tx.selectFrom('payouts').selectAll().where('id', '=', payoutId).executeTakeFirstOrThrow();
      const view = payoutFromRow(row, core.config.publicUrl);
      view.payeeVerification = payeeVerificationView(await tx.selectFrom('payee_verifications').selectAll().where('payout_id', '=', payoutId).executeTakeFirst(), row.status);
      await emitEvent(tx, payeeConfirmationRequiredEvent({ businessId: row.business_id, environment: row.environment }, view));
    }
  });
  return stepOf(core, (await payeeVerificationOf(core, payoutId))!);
}

/** Records the business's confirmation, its cancellation or the window's expiry; the first decision wins (idempotent). */
export async function recordPayeeDecision(core: Core, payoutId: string, decision: 'confirmed' | 'canceled' | 'expired', keyId: string | null): Promise<void> {
  await core.db
    .updateTable('payee_verifications')
    .set({ decision, decided_by: keyId, decided_at: core.now() })
    .where('payout_id', '=', payoutId)
    .where('decision', 'is', null)
    .execute();
}

/** Whether the payout waits for the business's payee confirmation (a close match or no match, undecided, payout `submitted`). */
export function awaitingPayeeConfirmation(status: string, row: Pick<PayeeVerificationsTable, 'result' | 'decision'> | undefined): boolean {
  return status === 'submitted' && !!row && (row.result === 'close_match' || row.result === 'no_match') && row.decision === null;
}
