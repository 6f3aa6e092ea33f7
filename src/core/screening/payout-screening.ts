/**
 * Screening a payout before money moves (docs/screening.md "Holding payouts"): the subject is the
 * payout's recipient (saved or inline) or, on a claim link, the claimant; a potential match or a
 * name mismatch opens a case (src/core/screening/cases.ts), a confirmed match refuses the payout.
 */
import type { Core } from '../context';
import type { PayoutScreeningStep } from '../../../workflows/payout.contract';
import { claimantIdentity } from '../claim-flow/claimant-identity';
import type { PayoutRow } from '../payouts';
import { type CaseHit, caseHits, caseOfPayout, openPayoutCase, recordSystemRejection, type ScreeningCase } from './cases';
import { recipientSubject } from './recipient-screening';
import type { ScreeningHit, ScreeningSubject } from './service';

/** The recipient of `payout` as a screening subject: the saved recipient's name, kind and country over the payout's recipient details (src/core/screening/recipient-screening.ts `recipientSubject`); a nameless recipient screens as an empty name. */
async function payoutRecipientSubject(core: Core, payout: PayoutRow): Promise<ScreeningSubject> {
  const details = payout.recipient_details ?? {};
  const saved = payout.recipient_id
    ? await core.db.selectFrom('recipients').select(['name', 'kind', 'country']).where('id', '=', payout.recipient_id).executeTakeFirst()
    : undefined;
  const kind = saved?.kind ?? details['recipient_kind'];
  const country = saved?.country ?? details['country'];
  const subject = recipientSubject({
    name: saved?.name ?? null,
    kind: kind === 'individual' || kind === 'business' ? kind : null,
    country: typeof country === 'string' ? country : null,
    details,
  });
  return subject ?? { name: '' };
}

const hitsLine = (hits: readonly CaseHit[]) => hits.slice(0, 3).map((h) => `${h.entryName} (${h.list} ${h.entryId}, ${h.score.toFixed(2)})`).join('; ');

/** The step a case already gives: open or in review -> review; released -> clear; rejected -> refused. */
function stepOfCase(c: ScreeningCase): PayoutScreeningStep {
  const screeningId = c.screeningId ?? '';
  if (c.status === 'released') return { outcome: 'clear', screeningId };
  if (c.status === 'rejected') {
    return { outcome: 'refused', screeningId, failure: { code: 'screening_rejected', message: `Refused by sanctions screening: ${c.decisionReason ?? 'rejected'}` } };
  }
  return { outcome: 'review', screeningId, caseId: c.id };
}

/**
 * Screens payout `payoutId` in its environment's service; idempotent per payout: a payout with a
 * case answers from the case without screening again. Throws when the payout does not exist.
 */
export async function screenPayout(core: Core, payoutId: string): Promise<PayoutScreeningStep> {
  const existing = await caseOfPayout(core.db, payoutId);
  if (existing) return stepOfCase(existing);
  const payout = await core.db.selectFrom('payouts').selectAll().where('id', '=', payoutId).executeTakeFirstOrThrow();
  const identity = payout.channel === 'claim_link' ? await claimantIdentity(core, payoutId) : null;
  const subject = identity?.subject ?? (await payoutRecipientSubject(core, payout));
  const service = core.screening[payout.environment];
  // Pick up a version another process loaded; built-in lists (sandbox) have no files to fetch, so they load here.
  if (!service.status().available) await (service.config.lists.every((l) => l.module.files.length === 0) ? service.refresh() : service.sync());
  const r = await service.screen(subject, { reference: payoutId });
  if (r.outcome === 'unavailable') return { outcome: 'unavailable', screeningId: r.screeningId, reasons: r.reasons, retryAfterMs: service.config.unavailableRecheckMs };
  const hits = caseHits(r.hits as ScreeningHit[]);
  if (r.outcome === 'confirmed_match') {
    const c = await recordSystemRejection(core, payout, { kind: 'sanctions', screeningId: r.screeningId, hits, summary: `confirmed match: ${hitsLine(hits)}` }, 'a confirmed match on a sanctions list');
    return stepOfCase(c);
  }
  const mismatch = identity?.nameMismatch;
  if (r.outcome === 'clear' && !mismatch) return { outcome: 'clear', screeningId: r.screeningId };
  const parts = [
    ...(r.outcome === 'potential_match' ? [`potential match: ${hitsLine(hits)}`] : []),
    ...(mismatch ? [`name mismatch: claimant "${mismatch.claimantName}", account holder "${mismatch.holderName}"`] : []),
  ];
  const c = await openPayoutCase(core, payout, { kind: r.outcome === 'potential_match' ? 'sanctions' : 'name_mismatch', screeningId: r.screeningId, hits, summary: parts.join('; ') });
  return stepOfCase(c);
}
