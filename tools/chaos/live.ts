/**
 * The chaos run's live traffic (docs/chaos.md "Live traffic"; docs/rails.md): live sepa_eur
 * payouts through the test bank over real SFTP, one per magic outcome of the bank (the creditor
 * name), live ach_usd payouts in NACHA files to the same bank, one per magic outcome of its ACH
 * side (the account number: settled by silence, returned R01 or R03, returned late R02 after
 * settlement), and live deposits as camt.054 credits to the business's live virtual IBAN, some
 * delivered twice. The live balance is funded the live way first (one large credit; it covers the
 * ACH payouts too: every live payout's source_amount is in the USDC balance). Everything is
 * recorded in the shared traffic log, so the audit's money and payout checks cover live payouts too.
 */
import { expectedRateRefusal } from './rates';
import type { Db } from '../../src/db/schema';
import type { TestBank } from '../test-bank/bank';
import type { ChaosClient } from './client';
import type { Rng } from './rng';
import type { PayoutRecord, TrafficLog } from './traffic';
import { isScreenedReference, SCREENED_NAME, SCREENED_OUTCOMES } from './screening';

/** Live outcomes: the reference that names the outcome for the audit, and the creditor name the bank reads. */
export const LIVE_OUTCOMES: readonly (readonly [number, string, string])[] = [
  [6, 'live:booked', 'Ana Lopez'],
  [1, 'live:AC01', 'Rita AC01'],
  [1, 'live:AM04', 'Max AM04'],
  [1, 'live:AC04', 'Otto AC04'],
  [1, 'live:MS03', 'Mia MS03'],
  [1, 'live:twice', 'Tom TWICE'],
];

/**
 * Live ach_usd outcomes: the reference that names the outcome for the audit (prefix `live:ach:`),
 * and the DFI account number the bank reads (tools/test-bank/ach-answers.ts magic numbers; any
 * other number settles by silence).
 */
export const LIVE_ACH_OUTCOMES: readonly (readonly [number, string, string])[] = [
  [4, 'live:ach:settled', '123456789'],
  [1, 'live:ach:R01', '9990000101'],
  [1, 'live:ach:R03', '9990000103'],
  [1, 'live:ach:late', '9990000202'],
];

/** The rail of a live payout by its reference: `live:ach:*` is ach_usd, any other `live:*` sepa_eur. */
export function liveRail(reference: string): 'ach' | 'sepa' {
  return reference.startsWith('live:ach:') ? 'ach' : 'sepa';
}

/**
 * Final state the test bank promises for a live payout with this reference
 * (tools/test-bank/answers.ts for sepa_eur, tools/test-bank/ach-answers.ts for ach_usd).
 */
export const LIVE_EXPECTED: Record<string, { status: string; code: string | null }> = {
  'live:booked': { status: 'succeeded', code: null },
  'live:AC01': { status: 'failed', code: 'invalid_destination' },
  'live:AM04': { status: 'failed', code: 'provider_declined' },
  'live:AC04': { status: 'refunded', code: 'refunded_by_provider' },
  'live:MS03': { status: 'refunded', code: 'refunded_by_provider' },
  'live:twice': { status: 'succeeded', code: null },
  'live:ach:settled': { status: 'succeeded', code: null },
  'live:ach:R01': { status: 'failed', code: 'provider_declined' },
  'live:ach:R03': { status: 'failed', code: 'invalid_destination' },
  'live:ach:late': { status: 'refunded', code: 'refunded_by_provider' },
  // Held by screening (tools/chaos/screening.ts), then released (paid) or rejected (funds returned).
  'live:ach:screened:release': { status: 'succeeded', code: null },
  'live:ach:screened:reject': { status: 'failed', code: 'screening_rejected' },
};

/** One camt.054 credit the bank sent (its reference is the deposit's external id; `copies`: how often it was delivered). */
export interface LiveCredit {
  reference: string;
  amountMinor: string;
  copies: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Opens the business's live EUR virtual account and funds it with one credit from the bank;
 * resolves once the deposit is credited. Returns the virtual IBAN. Throws after `timeoutMs`.
 */
export async function fundLive(live: ChaosClient, db: Db, bank: TestBank, run: string, credits: LiveCredit[], timeoutMs = 120_000): Promise<string> {
  const va = await live.send('POST', '/virtual-accounts', { body: { currency: 'EUR' }, idem: `${run}-live-va` });
  if (va.status !== 201) throw new Error(`live virtual account: ${va.status} ${JSON.stringify(va.body)}`);
  const row = await db.selectFrom('virtual_accounts').select('account_identifier').where('id', '=', va.body.id).executeTakeFirstOrThrow();
  const reference = `${run}-FUND`.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 35);
  credits.push({ reference, amountMinor: '50000000', copies: 1 });
  bank.credit({ creditorIban: row.account_identifier, amountMinor: '50000000', debtorName: 'Chaos Funding AG', debtorIban: 'DE02120300000000202051', remittance: 'Chaos funding', reference });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await db.selectFrom('deposits').select('status').where('external_id', '=', reference).executeTakeFirst();
    if (d?.status === 'credited') return row.account_identifier;
    if (Date.now() > deadline) throw new Error(`the live funding credit ${reference} was not credited in ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}

/**
 * Sends live payouts (sepa_eur and ach_usd, by the weights of {@link LIVE_OUTCOMES} and
 * {@link LIVE_ACH_OUTCOMES}) and credits until `until` (one every 0.5-2 s), recording them in `log`
 * and `credits`. Source amounts are 1.00-40.99 (USDC, the live balance's currency).
 */
export async function liveLoop(live: ChaosClient, rng: Rng, log: TrafficLog, run: string, until: number, bank: TestBank, iban: string, credits: LiveCredit[]): Promise<void> {
  let n = 0;
  while (Date.now() < until) {
    n++;
    if (rng.chance(0.2)) {
      const reference = `${run}-C${n}`.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 35);
      const credit: LiveCredit = { reference, amountMinor: String(rng.int(100, 100_000)), copies: rng.chance(0.3) ? 2 : 1 };
      credits.push(credit);
      for (let i = 0; i < credit.copies; i++) {
        bank.credit({ creditorIban: iban, amountMinor: credit.amountMinor, debtorName: 'Chaos Payer SA', debtorIban: 'BE68539007547034', remittance: `Chaos ${n}`, reference });
      }
    } else {
      const [reference, target] = rng.weighted([...LIVE_OUTCOMES, ...LIVE_ACH_OUTCOMES, ...SCREENED_OUTCOMES].map(([w, r, t]) => [w, [r, t] as const] as const));
      const rec: PayoutRecord = { idem: `chaos-${run}-live-${n}`, kind: 'live', reference, plan: null, status: 0, ids: new Set(), cut: rng.chance(0.25) };
      log.payouts.push(rec);
      const source_amount = `${rng.int(1, 40)}.${String(rng.int(0, 99)).padStart(2, '0')}`;
      const body =
        liveRail(reference) === 'ach'
          ? {
              channel: 'ach_usd',
              recipient: {
                type: 'bank_account',
                holder_name: isScreenedReference(reference) ? SCREENED_NAME : 'Jordan Lee',
                account_number: target,
                routing_number: '021000021',
                account_type: 'checking',
                recipient_kind: isScreenedReference(reference) ? 'business' : 'individual',
              },
              source_amount,
              reference,
            }
          : {
              channel: 'sepa_eur',
              recipient: { type: 'bank_account', holder_name: target, iban: 'FR1420041010050500013M02606', recipient_kind: 'individual' },
              source_amount,
              reference,
            };
      const r = await live.send('POST', '/payouts', { body, idem: rec.idem, cut: rec.cut });
      rec.status = r.status;
      if (r.body?.id) rec.ids.add(r.body.id);
      if (r.status !== 201 && !expectedRateRefusal(r.status, r.body)) log.unexpected.push(`live POST /payouts ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    }
    await sleep(rng.int(500, 2000));
  }
}
