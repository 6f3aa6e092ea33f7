/**
 * The settlement accounts under chaos (docs/treasury.md, docs/chaos.md): the test bank closes the
 * day twice, once in the middle of the traffic (planting a fee on the USD statement) and once after
 * quiescence (planting a fee on the EUR statement and withholding a return from the USD statement).
 * The audit then waits for the service to read and reconcile the four statements over the same
 * SFTP connections the faults cut and restart, and checks that every statement reconciles to zero
 * breaks except the planted ones: each planted break open with its kind, reference and amount, and
 * no other open break (no entry unmatched, no booking missing, no amount off, no balance that does
 * not add up or chain).
 */
import type { Db } from '../../src/db/schema';
import type { TestBank } from '../test-bank/bank';
import type { PlantedBreak } from '../test-bank/statements';
import type { Check } from './audit';

const RAIL = { EUR: 'sepa_credit_transfer', USD: 'ach' } as const;

/** A running treasury plan: the mid-run close is scheduled at start; `audit` closes the day and checks. */
export interface TreasuryChaos {
  audit(db: Db): Promise<Check[]>;
}

/**
 * Schedules the mid-run close at half of the traffic (`start`..`until`, epoch ms) and answers the
 * audit to run after quiescence.
 */
export function startTreasuryChaos(bank: TestBank, start: number, until: number, say: (line: string) => void): TreasuryChaos {
  const planted: PlantedBreak[] = [];
  let closes = 0;
  const midRun = (async () => {
    await new Promise((r) => setTimeout(r, Math.max(0, start + (until - start) * 0.5 - Date.now())));
    const c = bank.closeDay({ USD: { fee: { amountMinor: '1500', text: 'ACH ORIGINATION FEE' } } });
    closes++;
    planted.push(...c.planted);
    say(`treasury: the bank closed the day mid-run (statements #${c.sequence}; planted ${c.planted.map((p) => `${p.kind} ${p.account} ${p.reference}`).join(', ')})`);
  })();
  return {
    async audit(db) {
      await midRun;
      const c = bank.closeDay({ EUR: { fee: { amountMinor: '750', text: 'Account maintenance fee' } }, USD: { withholdReturn: true } });
      closes++;
      planted.push(...c.planted);
      say(`treasury: the bank closed the day (statements #${c.sequence}; planted ${c.planted.map((p) => `${p.kind} ${p.account} ${p.reference}`).join(', ')})`);
      const checks: Check[] = [];
      const deadline = Date.now() + 120_000;
      let read = 0;
      for (;;) {
        const rows = await db.selectFrom('treasury_statements').select(['id', 'reconciled_at']).execute();
        read = rows.length;
        if (rows.length >= closes * 2 && rows.every((r) => r.reconciled_at)) break;
        if (Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      // One more poll of each rail reconciles after the last files (returns read after a statement).
      await new Promise((r) => setTimeout(r, 3000));
      checks.push({ name: 'treasury: every end-of-day statement read and reconciled', ok: read === closes * 2, detail: `${read} of ${closes * 2} statements (camt.053 and BAI2 per close)` });
      const open = await db.selectFrom('treasury_breaks').select(['rail', 'kind', 'reference', 'difference_minor', 'detail']).where('status', '=', 'open').execute();
      const want = planted.map((p) => ({ rail: RAIL[p.account], kind: p.kind, reference: p.reference, difference: p.kind === 'bank_only' ? p.amountMinor : `-${p.amountMinor}` }));
      const got = open.map((b) => ({ rail: b.rail, kind: b.kind, reference: b.reference, difference: String(b.difference_minor) }));
      const key = (b: { rail: string; kind: string; reference: string | null; difference: string }) => `${b.rail}|${b.kind}|${b.reference}|${b.difference}`;
      const missing = want.filter((w) => !got.some((g) => key(g) === key(w)));
      const extra = open.filter((b, i) => !want.some((w) => key(w) === key(got[i])));
      checks.push({
        name: 'treasury: every statement reconciles to zero breaks except the planted ones',
        ok: missing.length === 0 && extra.length === 0,
        detail: `${want.length} planted, ${open.length} open; missing [${missing.map(key).join('; ')}]; unexpected [${extra.slice(0, 5).map((b) => `${b.rail} ${b.kind} ${b.reference} ${b.difference_minor}: ${b.detail}`).join('; ')}]`,
      });
      const entries = await db.selectFrom('treasury_statement_entries').select(['matched_key']).execute();
      const fees = planted.filter((p) => p.kind === 'bank_only').length;
      checks.push({
        name: 'treasury: every statement entry but the planted fees matched our books',
        ok: entries.filter((e) => !e.matched_key).length === fees,
        detail: `${entries.length} entries, ${entries.filter((e) => e.matched_key).length} matched, ${fees} planted fees`,
      });
      return checks;
    },
  };
}
