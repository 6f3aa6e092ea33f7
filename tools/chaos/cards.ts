/**
 * Card money in the chaos run (docs/chaos.md "Card payments"; docs/getting-paid.md "Card payments"):
 * the test card processor (tools/test-card-processor, the official `stripe` client's requests
 * checked by stripe-mock) is the stack's live processor. During the run, live Surface B card top-ups
 * are paid with Stripe's test cards and bank debits, their events delivered normally, twice, out of
 * order, late or never (polling must find those); some are declined, some refunded, some disputed
 * (won and lost). Deliveries to an API process that is down are retried by the processor (10
 * attempts, doubling from 0.3 s); a checkout event never sent is left to polling.
 *
 * Audit: the processor's paid sessions and our paid card payments are the same set, each credited
 * exactly once (one deposit per card payment, credited); every dispute the processor closed ends
 * here as it did there; no balance below zero (the database refuses it) and every ledger sums to
 * zero with the card accounts (tools/chaos/audit.ts).
 */
import type { Db } from '../../src/db/schema';
import { startTestCardProcessor, TEST_BANK_ACCOUNTS, TEST_CARDS, type TestCardDelivery, type TestCardInstrument, type TestCardProcessor } from '../test-card-processor/processor';
import type { Check } from './audit';
import type { ChaosClient } from './client';
import type { Rng } from './rng';

/** How each top-up is paid, by weight. */
const PAYMENTS: ReadonlyArray<readonly [number, TestCardInstrument]> = [
  [6, { card: TEST_CARDS.succeeds }],
  [1, { card: TEST_CARDS.declined }],
  [1, { bankAccount: TEST_BANK_ACCOUNTS.succeeds }],
  [1, { bankAccount: TEST_BANK_ACCOUNTS.fails }],
];
/** How its events are delivered, by weight. */
const DELIVERIES: ReadonlyArray<readonly [number, TestCardDelivery]> = [
  [5, 'normal'],
  [2, 'twice'],
  [1, 'shuffle'],
  [1, 'silent'],
  [1, 'late'],
];

/** What the card loop did, for the summary and the audit. */
export interface CardTraffic {
  topups: number;
  paid: number;
  refunds: number;
  disputes: { won: number; lost: number };
  unexpected: string[];
}

/** The chaos run's card processor and its loop. */
export interface CardChaos {
  processor: TestCardProcessor;
  /** The stack's settings for it: the processor, a short poll (lost events are found in seconds) and a short reserve period. */
  env: Record<string, string>;
  traffic: CardTraffic;
  /** Points the processor's events at the stack. */
  attach(stackUrl: string): void;
  /** Live card top-ups through `claimLive` (Surface B, live key) until `until`, one every 1-3 s. */
  loop(claimLive: ChaosClient, until: number, run: string): Promise<void>;
  summary(): [string, string];
  audit(db: Db): Promise<Check[]>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the chaos card processor (seeded by `rng`). */
export async function startCardChaos(rng: Rng): Promise<CardChaos> {
  // Stripe redelivers for days; 10 attempts from 0.3 s, doubling, outlast any process the faults kill.
  const processor = await startTestCardProcessor({ stepMs: 300, lateMs: 6000, retry: { attempts: 10, delayMs: 300 } });
  const traffic: CardTraffic = { topups: 0, paid: 0, refunds: 0, disputes: { won: 0, lost: 0 }, unexpected: [] };
  const background: Promise<unknown>[] = [];
  return {
    processor,
    env: { ...processor.env, CARD_POLL_AFTER: 'PT5S', CARD_RESERVE_PERIOD: 'PT30S' },
    traffic,
    attach(stackUrl) {
      processor.setWebhookTarget(`${stackUrl}/hooks/card/stripe`);
    },
    async loop(claimLive, until, run) {
      let n = 0;
      while (Date.now() < until) {
        n++;
        const amountUsd = `${rng.int(5, 200)}.${String(rng.int(0, 99)).padStart(2, '0')}`;
        const r = await claimLive.send('POST', '/funding/card', {
          body: { amountUsd, successUrl: 'https://example.com/ok', cancelUrl: 'https://example.com/cancel' },
          idem: `chaos-${run}-card-${n}`,
        });
        if (r.status !== 201) {
          traffic.unexpected.push(`POST /funding/card: ${r.status} ${JSON.stringify(r.body).slice(0, 160)}`);
          await sleep(rng.int(1000, 3000));
          continue;
        }
        traffic.topups++;
        const topupId = String(r.body.id);
        const sessionId = new URL(String(r.body.checkoutUrl)).pathname.split('/').pop()!;
        const instrument = rng.weighted(PAYMENTS.map(([w, v]) => [w, v] as const));
        const delivery = rng.weighted(DELIVERIES.map(([w, v]) => [w, v] as const));
        const paid = await processor.pay(sessionId, instrument, { delivery }).catch((err: Error) => {
          traffic.unexpected.push(`pay ${sessionId}: ${err.message}`);
          return null;
        });
        if (paid?.outcome === 'succeeded' && paid.paymentIntentId) {
          traffic.paid++;
          const intent = paid.paymentIntentId;
          const next = rng.int(0, 9);
          if (next === 0) {
            // A refund once the top-up is credited (402 while the balance does not cover it is an answer, not a fault).
            background.push(
              (async () => {
                await sleep(rng.int(2000, 6000));
                const f = await claimLive.send('POST', `/funding/card/${topupId}/refunds`, { body: {}, idem: `chaos-${run}-card-${n}-refund` });
                if (f.status === 201) traffic.refunds++;
                else if (![402, 409, 422].includes(f.status)) traffic.unexpected.push(`refund ${topupId}: ${f.status} ${JSON.stringify(f.body).slice(0, 160)}`);
              })(),
            );
          } else if (next <= 2) {
            const outcome = next === 1 ? 'won' : 'lost';
            background.push(
              (async () => {
                await sleep(rng.int(1000, 4000));
                // Never `silent`: polling covers checkout sessions only; a dispute's events are redelivered until answered.
                const delivery = rng.weighted(DELIVERIES.filter(([, v]) => v !== 'silent').map(([w, v]) => [w, v] as const));
                await processor.dispute(intent, { outcome, delivery });
                traffic.disputes[outcome]++;
              })().catch((err: Error) => traffic.unexpected.push(`dispute ${intent}: ${err.message}`)),
            );
          }
        }
        await sleep(rng.int(1000, 3000));
      }
      await Promise.all(background);
      await processor.idle();
    },
    summary() {
      return [
        'live card top-ups through the test card processor (paid / refunded / disputes won / lost)',
        `${traffic.topups} (${traffic.paid} / ${traffic.refunds} / ${traffic.disputes.won} / ${traffic.disputes.lost})`,
      ];
    },
    async audit(db) {
      const sessions = processor.sessions().filter((s) => s.clientReferenceId);
      const paidThere = new Set(sessions.filter((s) => s.status === 'complete' && s.paymentStatus === 'paid').map((s) => s.id));
      const rows = await db
        .selectFrom('card_payments')
        .select(['id', 'session_id', 'status', 'deposit_id', 'payment_intent_id'])
        .where('environment', '=', 'live')
        .execute();
      const paidHere = new Set(rows.filter((r) => r.status === 'paid').map((r) => r.session_id));
      const onlyThere = [...paidThere].filter((s) => !paidHere.has(s));
      const onlyHere = [...paidHere].filter((s) => s && !paidThere.has(s));
      const deposits = await db.selectFrom('deposits').select(['id', 'external_id', 'status']).where('source', '=', 'card').where('environment', '=', 'live').execute();
      const byPayment = new Map<string, typeof deposits>();
      for (const d of deposits) byPayment.set(d.external_id ?? '', [...(byPayment.get(d.external_id ?? '') ?? []), d]);
      const badCredit: string[] = [];
      for (const r of rows) {
        const ds = byPayment.get(r.id) ?? [];
        if (r.status === 'paid' && (ds.length !== 1 || ds[0]!.status !== 'credited')) badCredit.push(`${r.id}: ${ds.length} deposits (${ds.map((d) => d.status).join(', ')})`);
        if (r.status !== 'paid' && ds.length > 0) badCredit.push(`${r.id} ${r.status} with a deposit`);
      }
      const closed = processor
        .events()
        .filter((e) => e.type === 'charge.dispute.closed')
        .map((e) => JSON.parse(e.body).data.object as { id: string; status: string });
      const disputes = new Map((await db.selectFrom('card_disputes').select(['id', 'status', 'shortfall', 'recovered_at']).execute()).map((d) => [d.id, d]));
      const disputeMismatch = closed.filter((d) => disputes.get(d.id)?.status !== d.status).map((d) => `${d.id}: processor ${d.status}, here ${disputes.get(d.id)?.status ?? 'missing'}`);
      return [
        {
          name: 'cards: the processor\'s paid sessions are exactly our paid card payments',
          ok: onlyThere.length === 0 && onlyHere.length === 0 && traffic.unexpected.length === 0,
          detail: `${paidThere.size} paid there, ${paidHere.size} here; only there [${onlyThere.slice(0, 3).join(', ')}], only here [${onlyHere.slice(0, 3).join(', ')}]; ${processor.events().length} events sent; unexpected [${traffic.unexpected.slice(0, 3).join('; ')}]`,
        },
        {
          name: 'cards: every card credit has exactly one completion (one credited deposit per paid card payment, none for others)',
          ok: badCredit.length === 0,
          detail: `${rows.length} card payments, ${deposits.length} card deposits; ${badCredit.length} wrong [${badCredit.slice(0, 3).join('; ')}]`,
        },
        {
          name: 'cards: every dispute the processor closed ends here as it did there',
          ok: disputeMismatch.length === 0,
          detail: `${closed.length} closed disputes, ${disputes.size} here; ${disputeMismatch.length} differ [${disputeMismatch.slice(0, 3).join('; ')}]`,
        },
      ];
    },
    close: () => processor.close(),
  };
}
