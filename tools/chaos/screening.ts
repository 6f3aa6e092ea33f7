/**
 * Sanctions screening in the chaos run (docs/chaos.md "Screening"; docs/screening.md "Holding
 * payouts"). The stack screens live payouts against the repository's OFAC CSV copy (tools/stack).
 * Some live ach_usd payouts go to "BANCO NACIONAL DE CUBA": each is held for review before its rail
 * is called. A reviewer, as two operators, decides each held case as the payout's reference says
 * (`live:ach:screened:release`: opened by one operator, released by another; `...:reject`:
 * rejected), under the same faults as everything else; a decision whose signal failed is signalled
 * again, as an operator re-runs the command.
 *
 * Audit: no payout reached a rail (an attempt) without a screening before it that used loaded
 * lists and answered clear, or a potential match whose case operators released; every released
 * case has its two audit records by two different operators.
 */
import { Client, Connection } from '@temporalio/client';
import type { Db } from '../../src/db/schema';
import { decideCase, listScreeningCases, takeCaseForReview } from '../../src/core/screening/cases';
import { signalScreeningDecision } from '../../src/temporal/payout-gateway';
import type { Check } from './audit';

/** Live ach_usd outcomes of screened payouts (weight, reference, account number); the holder is {@link SCREENED_NAME}. */
export const SCREENED_OUTCOMES: readonly (readonly [number, string, string])[] = [
  [1, 'live:ach:screened:release', '123456789'],
  [1, 'live:ach:screened:reject', '123456789'],
];
/** An OFAC SDN entity in the repository's copy of the list (test/fixtures/screening/ofac-csv). */
export const SCREENED_NAME = 'BANCO NACIONAL DE CUBA';
export const isScreenedReference = (reference: string) => reference.startsWith('live:ach:screened:');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Decides held cases every second until stopped; returns a stop function that resolves after the last round. */
export function startReviewer(db: Db, temporalAddress: string, say: (line: string) => void): () => Promise<{ decided: number; resignalled: number }> {
  let stopped = false;
  let decided = 0;
  let resignalled = 0;
  const ctx = { db, now: () => new Date(), config: { publicUrl: '' } };
  const loop = (async () => {
    let client: Client | undefined;
    while (!stopped) {
      try {
        client ??= new Client({ connection: await Connection.connect({ address: temporalAddress }) });
        const cases = await listScreeningCases(db, { statuses: ['open', 'in_review', 'released', 'rejected'], limit: 500 });
        for (const c of cases) {
          const payout = await db.selectFrom('payouts').select(['status', 'reference']).where('id', '=', c.subjectId).executeTakeFirst();
          if (!payout || !isScreenedReference(payout.reference ?? '') || !['submitted', 'claimed'].includes(payout.status)) continue;
          const reject = payout.reference!.endsWith(':reject');
          if (c.status === 'open' && !reject) await takeCaseForReview(ctx, c.id, { id: 'chaos-ops-a' });
          const r = await decideCase(ctx, c.id, { id: reject ? 'chaos-ops-a' : 'chaos-ops-b' }, reject ? 'rejected' : 'released', 'chaos review');
          if (r.changed) decided++;
          else resignalled++;
          await signalScreeningDecision(client, c.subjectId, { caseId: c.id, decision: r.case.status as 'released' | 'rejected', reason: r.case.decisionReason });
        }
      } catch (err) {
        say(`screening reviewer: ${(err as Error).message} (trying again)`);
        client = undefined;
      }
      await sleep(1000);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return { decided, resignalled };
  };
}

/** The audit's screening checks (see the module comment). */
export async function auditScreening(db: Db): Promise<Check[]> {
  const attempted = await db
    .selectFrom('payout_attempts')
    .select(['payout_id'])
    .select((eb) => eb.fn.min('started_at').as('first'))
    .groupBy('payout_id')
    .execute();
  const screenings = await db.selectFrom('screenings').select(['reference', 'outcome', 'screened_at', 'list_versions']).where('reference', 'is not', null).execute();
  const versions = new Map((await db.selectFrom('screening_list_versions').select(['id', 'loaded_at']).execute()).map((v) => [v.id, new Date(v.loaded_at)]));
  const cases = new Map((await db.selectFrom('screening_cases').select(['id', 'subject_id', 'status']).execute()).map((c) => [c.subject_id, c]));
  const byPayout = new Map<string, typeof screenings>();
  for (const s of screenings) byPayout.set(s.reference!, [...(byPayout.get(s.reference!) ?? []), s]);
  const unscreened: string[] = [];
  for (const a of attempted) {
    const first = new Date(a.first as unknown as string);
    const ok = (byPayout.get(a.payout_id) ?? []).some((s) => {
      const used = s.list_versions as unknown as { version_id: string }[];
      const fresh = used.length > 0 && used.every((v) => (versions.get(v.version_id)?.getTime() ?? Infinity) <= new Date(s.screened_at).getTime());
      const passed = s.outcome === 'clear' || (s.outcome === 'potential_match' && cases.get(a.payout_id)?.status === 'released');
      return fresh && passed && new Date(s.screened_at).getTime() <= first.getTime();
    });
    if (!ok) unscreened.push(a.payout_id);
  }
  const released = [...cases.values()].filter((c) => c.status === 'released');
  const unaudited: string[] = [];
  for (const c of released) {
    const acts = await db.selectFrom('audit_events').select(['action', 'actor_id']).where('object_id', '=', c.id).execute();
    const opener = acts.find((e) => e.action === 'screening_case.review_started')?.actor_id;
    const releaser = acts.find((e) => e.action === 'screening_case.released')?.actor_id;
    if (!opener || !releaser || opener === releaser) unaudited.push(c.id);
  }
  return [
    {
      name: 'screening: no payout reached a rail without a screening on loaded lists before it',
      ok: unscreened.length === 0,
      detail: `${attempted.length} payouts with a rail attempt, ${unscreened.length} without a passing screening before it [${unscreened.slice(0, 3).join(', ')}]`,
    },
    {
      name: 'screening: every released case has its audit records by two operators',
      ok: unaudited.length === 0,
      detail: `${cases.size} cases (${released.length} released), ${unaudited.length} released without both records [${unaudited.slice(0, 3).join(', ')}]`,
    },
  ];
}
