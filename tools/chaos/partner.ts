/**
 * The chaos run's payout partner (docs/chaos.md "Payout partner"; docs/rails.md "Payout partner"):
 * the test partner (tools/test-partner/partner.ts) with chaos on: API calls that fail (503 before
 * doing anything), creates that time out or fail after making the transfer, and by magic holder
 * names duplicated (`TWICE`), late (`LATE`), out-of-order (`SHUFFLE`) and missing (`SILENT`)
 * webhooks, bounces and cancellations. Live spei_mxn payouts go through it during the run.
 *
 * The audit: no payout paid twice at the partner (at most one transfer per customerTransactionId,
 * and at most one funded, uncancelled transfer per payout), and every partner payout ends as the
 * partner's final state says (outgoing_payment_sent: succeeded; bounced_back, funds_refunded:
 * refunded or failed; cancelled: failed).
 */
import type { Db } from '../../src/db/schema';
import { clabeCheckDigit } from '../../src/domain/funding';
import { wiseCustomerTransactionId } from '../../src/rails/wise/module';
import { startTestPartner, type TestPartner } from '../test-partner/partner';
import type { Check } from './audit';
import type { ChaosClient } from './client';
import type { Rng } from './rng';

/** Holder names of the partner payouts, by weight (the test partner's magic words). */
const NAMES: ReadonlyArray<readonly [number, string]> = [
  [5, 'Ana Lopez'],
  [1, 'Berta BOUNCE Diaz'],
  [1, 'Rosa REFUND Leon'],
  [1, 'Carla CANCEL Ruiz'],
  [1, 'Dora SILENT Vega'],
  [2, 'Elsa TWICE Mora'],
  [1, 'Fina SHUFFLE Gil'],
  [1, 'Lina LATE Ortiz'],
  [1, 'Gala TIMEOUT Paz'],
  [1, 'Pia FAILCREATE Rey'],
];

/** Starts the chaos test partner (seeded by `rng`): 5 % of calls fail, 5 % of creates hang after making the transfer, 5 % fail after making it. */
export async function startChaosPartner(rng: Rng): Promise<TestPartner> {
  return startTestPartner({ stepMs: 300, lateMs: 8000, hangMs: 15_000, chaos: { random: () => rng.int(0, 9999) / 10_000, failRate: 0.05, hangRate: 0.05, failAfterCreateRate: 0.05 } });
}

/** Service settings for the chaos stack: the partner, a short call timeout and a quick poll of late webhooks. */
export function chaosPartnerEnv(partner: TestPartner): Record<string, string> {
  return { ...partner.env, RAIL_WISE_TIMEOUT: 'PT3S', RAIL_WISE_POLL_INTERVAL: 'PT2S', RAIL_WISE_WEBHOOK_LATE_AFTER: 'PT10S', RAIL_WISE_RETURN_WINDOW: 'PT60S', RAIL_WISE_RETURN_POLL_INTERVAL: 'PT10S' };
}

/** The live partner payouts sent (payout ids, filled as they are created). */
export interface PartnerTraffic {
  ids: string[];
  refused: string[];
}

/** The reference of a chaos partner payout (`chaos partner <n>`): the main audit leaves its outcome to {@link auditPartner}. */
export function isPartnerReference(reference: string): boolean {
  return reference.startsWith('chaos partner ');
}

/** Sends live spei_mxn payouts through the partner until `until` (one every 1-4 s), with magic holder names. */
export async function partnerLoop(live: ChaosClient, rng: Rng, run: string, until: number, traffic: PartnerTraffic): Promise<void> {
  let n = 0;
  while (Date.now() < until) {
    n++;
    const name = rng.weighted(NAMES.map(([w, v]) => [w, v] as const));
    const first17 = `0021800${String(n).padStart(10, '0')}`;
    const body = {
      channel: 'spei_mxn',
      recipient: { type: 'bank_account', holder_name: name, clabe: `${first17}${clabeCheckDigit(first17)}`, recipient_kind: 'individual' },
      source_amount: `${rng.int(1, 30)}.${String(rng.int(0, 99)).padStart(2, '0')}`,
      reference: `chaos partner ${n}`,
    };
    const r = await live.send('POST', '/payouts', { body, idem: `chaos-${run}-partner-${n}` });
    if (r.status === 201 && r.body?.id) traffic.ids.push(String(r.body.id));
    else if (r.status !== 400 || r.body?.error?.code !== 'channel_unavailable') traffic.refused.push(`${r.status} ${JSON.stringify(r.body).slice(0, 160)}`);
    await new Promise((res) => setTimeout(res, rng.int(1000, 4000)));
  }
}

/** What a partner's final transfer state allows the payout to end as. */
const ALLOWED: Record<string, string[]> = {
  outgoing_payment_sent: ['succeeded'],
  bounced_back: ['refunded', 'failed'],
  funds_refunded: ['refunded', 'failed'],
  charged_back: ['refunded', 'failed'],
  cancelled: ['failed'],
};

/** The partner audit checks (see the file header). */
export async function auditPartner(db: Db, partner: TestPartner, traffic: PartnerTraffic): Promise<Check[]> {
  const transfers = partner.transfers();
  const byCtid = new Map<string, number>();
  for (const t of transfers) byCtid.set(t.customerTransactionId, (byCtid.get(t.customerTransactionId) ?? 0) + 1);
  const repeated = [...byCtid.entries()].filter(([, c]) => c > 1);
  const rows = traffic.ids.length
    ? await db.selectFrom('payouts').select(['id', 'status', 'attempt_count']).where('id', 'in', traffic.ids).execute()
    : [];
  const paidTwice: string[] = [];
  const mismatched: string[] = [];
  const open: string[] = [];
  for (const p of rows) {
    const mine = [];
    for (let a = 1; a <= Math.max(1, p.attempt_count ?? 1) + 1; a++) {
      const ctid = wiseCustomerTransactionId(p.id, a);
      mine.push(...transfers.filter((t) => t.customerTransactionId === ctid));
    }
    const live = mine.filter((t) => t.funded && t.status !== 'cancelled');
    if (live.length > 1) paidTwice.push(`${p.id}: ${live.map((t) => `${t.id}(${t.status})`).join(', ')}`);
    const last = live[0] ?? mine[mine.length - 1];
    if (!['succeeded', 'failed', 'refunded', 'canceled'].includes(p.status)) {
      open.push(`${p.id} ${p.status}`);
      continue;
    }
    if (!last) {
      if (p.status === 'succeeded') mismatched.push(`${p.id}: succeeded without a transfer at the partner`);
      continue;
    }
    const allowed = ALLOWED[last.status];
    if (allowed && !allowed.includes(p.status)) mismatched.push(`${p.id}: ${p.status}, the partner says ${last.status}`);
    if (!allowed) open.push(`${p.id}: the partner's transfer ${last.id} is still ${last.status}`);
  }
  return [
    { name: 'partner: payouts sent through the payout partner', ok: traffic.refused.length === 0, detail: `${traffic.ids.length} payouts, ${transfers.length} transfers at the partner, ${partner.webhooks().length} webhooks${traffic.refused.length ? `; refused: ${traffic.refused.slice(0, 3).join(' | ')}` : ''}` },
    { name: 'partner: no payout paid twice (one transfer per customerTransactionId, one funded per payout)', ok: repeated.length === 0 && paidTwice.length === 0, detail: repeated.length + paidTwice.length === 0 ? 'none' : [...repeated.map(([c, n]) => `${c} x${n}`), ...paidTwice].slice(0, 5).join('; ') },
    { name: "partner: every payout ends as the partner's final state says", ok: mismatched.length === 0 && open.length === 0, detail: mismatched.length + open.length === 0 ? `${rows.length} payouts checked` : [...mismatched, ...open].slice(0, 5).join('; ') },
  ];
}
