/**
 * The audit after a chaos run (docs/chaos.md): SQL over the stack's PostgreSQL,
 * HTTP over the API, and Temporal describes. Each check is a row of the printed table; any failed
 * row makes `npm run chaos` exit non-zero.
 *
 * Ledger model (src/core/ledger.ts): every posting is one row moving `amount` from a debit account
 * to a credit account of one business and environment, so each posting (a ledger transaction) has
 * debits = credits by construction; the audit replays all postings per business into its
 * accounts (available, held, reserve, sent, external, and the card accounts card_fees, refunds,
 * disputes) and checks that they sum to zero and that the `balances` rows (available, held,
 * reserve) equal the replay.
 */
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { sql } from 'kysely';
import type { Db } from '../../src/db/schema';
import { surfaceEventName } from '../../src/core/webhooks';
import { coreIdempotencyKey } from '../../src/domain/idempotency-keys';
import { formatAmount, USDC } from '../../src/domain/money';
import type { ChaosClient } from './client';
import type { Receiver } from './receiver';

/** The ledger accounts of src/core/ledger.ts `Account`, at zero. */
import { replayLedger } from './ledger-replay';
import { type LiveCredit, LIVE_EXPECTED } from './live';
import { isPartnerReference } from './partner';
import { EXPECTED, type TrafficLog } from './traffic';
import { securityChecks } from './security';

/** One row of the audit table. */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const TERMINAL = new Set(['succeeded', 'failed', 'refunded', 'canceled']);
const usdc = (v: bigint) => formatAmount(v, USDC);

/** Postings a payout in `status` must have (suffixes of `payout:{id}:`; the hold only when not a batch item). */
export function expectedPostings(status: string, batch: boolean): string[] {
  const hold = batch ? [] : ['hold'];
  switch (status) {
    case 'succeeded':
      return [...hold, 'settle'];
    case 'refunded':
      return [...hold, 'settle', 'refund'];
    case 'failed':
    case 'canceled':
      return [...hold, 'release'];
    default:
      return hold;
  }
}

export async function audit(opts: {
  db: Db;
  temporalAddress: string;
  businessId: string;
  client: ChaosClient;
  traffic: TrafficLog;
  receiver: Receiver;
  endpointCreatedAt: Date;
  /** Filled with details of failed payouts (database row and workflow history). */
  diagnostics?: string[];
  /** Live credits the test bank sent (live traffic only). */
  liveCredits?: LiveCredit[];
}): Promise<Check[]> {
  const { db, businessId, traffic, receiver } = opts;
  const checks: Check[] = [];
  const add = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });

  // 1. Ledger: postings well formed, accounts sum to zero, balances = replay.
  const { postings, balances, accounts, malformed, unbalanced, balancesOff } = await replayLedger(db);
  const mismatched = new Set(balancesOff.map((o) => o.ledger)).size;
  add(
    'ledger: every transaction debits = credits (with card fees, reserve, refunds and disputes), balances = replay',
    malformed === 0 && unbalanced.length === 0 && mismatched === 0,
    `${postings.length} postings, ${malformed} malformed; ${accounts.size} ledgers, ${unbalanced.length} not summing to 0; ${mismatched} balance rows differ from the replay`,
  );

  // 2. The money equation per business (and the chaos business over HTTP).
  const flows = await sql<{ business_id: string; environment: string; funded: string; deposits: string; withdrawals: string; settled: string; refunds: string; card_back: string }>`
    select business_id, environment,
      coalesce(sum(amount) filter (where debit_account = 'external' and credit_account = 'available' and key like 'fund:%'), 0)::text as funded,
      coalesce(sum(amount) filter (where debit_account = 'external' and credit_account = 'available' and key not like 'fund:%'), 0)::text as deposits,
      coalesce(sum(amount) filter (where credit_account = 'external'), 0)::text as withdrawals,
      coalesce(sum(amount) filter (where debit_account = 'held' and credit_account = 'sent'), 0)::text as settled,
      coalesce(sum(amount) filter (where debit_account = 'sent' and credit_account = 'available'), 0)::text as refunds,
      (coalesce(sum(amount) filter (where credit_account in ('refunds', 'disputes')), 0)
        - coalesce(sum(amount) filter (where debit_account in ('refunds', 'disputes')), 0))::text as card_back
    from ledger_postings group by business_id, environment`.execute(db);
  let eqFailed = 0;
  let chaosLine = '';
  for (const f of flows.rows) {
    const b = balances.find((x) => x.business_id === f.business_id && x.environment === f.environment);
    // Card money going back (card refunds, disputes: docs/getting-paid.md "Refunds", "Disputes") leaves
    // available or reserve; the reserve is the business's money still (docs/getting-paid.md "Rolling reserve").
    const lhs = BigInt(f.funded) + BigInt(f.deposits) - BigInt(f.withdrawals) - BigInt(f.settled) + BigInt(f.refunds) - BigInt(f.card_back);
    const rhs = BigInt(b?.available ?? 0n) + BigInt(b?.held ?? 0n) + BigInt(b?.reserve ?? 0n);
    if (lhs !== rhs) eqFailed++;
    if (f.business_id === businessId && f.environment === 'sandbox') {
      chaosLine = `chaos business: funded ${usdc(BigInt(f.funded))} + deposits ${usdc(BigInt(f.deposits))} - withdrawals ${usdc(BigInt(f.withdrawals))} - settled (amount + fees) ${usdc(BigInt(f.settled))} + refunds ${usdc(BigInt(f.refunds))} = ${usdc(lhs)}; available + held = ${usdc(rhs)}`;
    }
  }
  const http = await opts.client.send('GET', '/balance');
  const chaosBal = balances.find((x) => x.business_id === businessId && x.environment === 'sandbox');
  const httpOk = http.status === 200 && http.body.available === usdc(BigInt(chaosBal?.available ?? 0n)) && http.body.held === usdc(BigInt(chaosBal?.held ?? 0n));
  add(
    'money: funded + deposits - (settled + fees) + refunds - card refunds and disputes = available + held + reserve',
    eqFailed === 0 && httpOk,
    `${flows.rows.length} business ledgers, ${eqFailed} off; ${chaosLine}; GET /balance ${http.status} ${httpOk ? 'agrees' : `DISAGREES (${JSON.stringify(http.body)})`}`,
  );

  // 3. held = the holds of the payouts still open (at quiescence: claim links awaiting their recipient).
  const open = await sql<{ business_id: string; environment: string; held: string }>`
    select business_id, environment, coalesce(sum(debit_total), 0)::text as held from payouts
    where status not in ('succeeded', 'failed', 'refunded', 'canceled') group by business_id, environment`.execute(db);
  let heldOff = 0;
  for (const b of balances) {
    const o = open.rows.find((r) => r.business_id === b.business_id && r.environment === b.environment);
    if (BigInt(o?.held ?? 0) !== BigInt(b.held)) heldOff++;
  }
  add('money: held = debit totals of the payouts still open', heldOff === 0, `${balances.length} balances, ${heldOff} whose held differs from their open payouts' holds`);

  // 4. Every payout final, or waiting with a live workflow; as its reference says; postings match.
  const payouts = await db
    .selectFrom('payouts')
    .select(['id', 'status', 'reference', 'failure_code', 'channel', 'disbursement_item_id', 'idempotency_key', 'business_id'])
    .execute();
  const byId = new Map(payouts.map((p) => [p.id, p]));
  const accepted = traffic.payouts.filter((r) => r.status === 201);
  const missing = accepted.filter((r) => r.ids.size !== 1 || !byId.has([...r.ids][0]!));
  const connection = await Connection.connect({ address: opts.temporalAddress });
  const temporal = new Client({ connection });
  const notFinal: string[] = [];
  const wrongWorkflow: string[] = [];
  const queue = [...payouts];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let p = queue.pop(); p; p = queue.pop()) {
        let wf = 'NOT_FOUND';
        try {
          const d = await temporal.workflow.getHandle(p.id).describe();
          wf = d.status.name;
        } catch {
          // not found
        }
        if (TERMINAL.has(p.status)) {
          if (wf === 'RUNNING') wrongWorkflow.push(`${p.id} ${p.status} but its workflow is RUNNING`);
        } else if (p.status === 'awaiting_claim') {
          if (wf !== 'RUNNING') wrongWorkflow.push(`${p.id} awaiting_claim but its workflow is ${wf}`);
        } else notFinal.push(`${p.id} ${p.status} (workflow ${wf})`);
      }
    }),
  );
  // A terminal payout whose workflow still runs may be closing (a live payout's return window just
  // ended; its last task is queued on a loaded machine): look again for up to 60 s before flagging it.
  for (const deadline = Date.now() + 60_000; wrongWorkflow.length > 0 && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 2000));
    for (const line of [...wrongWorkflow]) {
      const id = line.split(' ')[0]!;
      const status = await temporal.workflow.getHandle(id).describe().then((d) => d.status.name, () => 'NOT_FOUND');
      if (status !== 'RUNNING' && line.includes('but its workflow is RUNNING')) wrongWorkflow.splice(wrongWorkflow.indexOf(line), 1);
    }
  }
  // The history of a few problem workflows, to see where they stand.
  const diagnostics: string[] = [];
  for (const line of [...notFinal, ...wrongWorkflow].slice(0, 4)) {
    const id = line.split(' ')[0]!;
    try {
      const history = await temporal.workflow.getHandle(id).fetchHistory();
      const types = (history.events ?? []).map((e) => {
        const t = proto.temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType);
        const marker = e.markerRecordedEventAttributes?.markerName;
        return `${t.replace(/^EVENT_TYPE_/, '')}${marker ? `(${marker})` : ''}`;
      });
      const row = await db.selectFrom('payouts').select(['status', 'failure_code', 'claimed_at', 'attempt_count']).where('id', '=', id).executeTakeFirst();
      diagnostics.push(`${line}\n    database: ${JSON.stringify(row)}\n    history (${types.length} events): ${types.join(' ')}`);
    } catch (err) {
      diagnostics.push(`${line}: history unavailable (${String(err)})`);
    }
  }
  const batches = await sql<{ id: string; status: string; items: string }>`
    select d.id, d.status, (select string_agg(s, ', ') from (select i.status || ' ' || count(*) as s from disbursement_items i where i.disbursement_id = d.id group by i.status) x) as items
    from disbursements d where d.status in ('processing', 'paused')`.execute(db);
  for (const b of batches.rows) {
    let wf = 'NOT_FOUND';
    try {
      wf = (await temporal.workflow.getHandle(b.id).describe()).status.name;
    } catch {
      // not found
    }
    diagnostics.push(`${b.id} ${b.status}; items: ${b.items}; workflow ${wf}`);
  }
  opts.diagnostics?.push(...diagnostics);
  await connection.close();
  const waiting = payouts.filter((p) => p.status === 'awaiting_claim').length;
  add(
    'payouts: each accepted one in one terminal state, or waiting with a live workflow',
    missing.length === 0 && notFinal.length === 0 && wrongWorkflow.length === 0,
    `${accepted.length} accepted by the API (201), ${payouts.length} in the database (with batch items): ` +
      `${payouts.length - waiting - notFinal.length} terminal, ${waiting} awaiting_claim with a RUNNING workflow; ` +
      `${missing.length} accepted but missing or ambiguous, ${notFinal.length} not final [${notFinal.slice(0, 3).join('; ')}], ` +
      `${wrongWorkflow.length} workflow mismatches [${wrongWorkflow.slice(0, 3).join('; ')}]`,
  );

  const planOf = new Map<string, string | null>();
  for (const r of traffic.payouts) for (const id of r.ids) planOf.set(id, r.plan);
  const wrongOutcome: string[] = [];
  const counts: Record<string, number> = {};
  for (const p of payouts) {
    const ref = p.reference ?? '';
    if (isPartnerReference(ref)) continue; // audited against the partner's final states (tools/chaos/partner.ts)
    const plan = planOf.get(p.id);
    const want = plan === 'wait' ? { status: 'awaiting_claim', code: null } : (EXPECTED[ref] ?? LIVE_EXPECTED[ref] ?? EXPECTED['']!);
    const label = `${p.status}${p.failure_code ? `/${p.failure_code}` : ''}`;
    counts[label] = (counts[label] ?? 0) + 1;
    if (p.status !== want.status || (p.failure_code ?? null) !== want.code) wrongOutcome.push(`${p.id} ${ref || '(plain)'} -> ${label}`);
  }
  add(
    'payouts: each ended as its sandbox reference says',
    wrongOutcome.length === 0,
    `${Object.entries(counts)
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; ${wrongOutcome.length} unexpected [${wrongOutcome.slice(0, 3).join('; ')}]`,
  );

  const payoutPostings = new Map<string, string[]>();
  for (const p of postings) {
    const m = /^payout:([^:]+):(\w+)$/.exec(p.key);
    if (m) payoutPostings.set(m[1]!, [...(payoutPostings.get(m[1]!) ?? []), m[2]!]);
  }
  const postingOff: string[] = [];
  for (const p of payouts) {
    const want = expectedPostings(p.status, !!p.disbursement_item_id).sort().join(',');
    const got = (payoutPostings.get(p.id) ?? []).sort().join(',');
    if (want !== got) postingOff.push(`${p.id} ${p.status}: ${got || 'none'} (want ${want})`);
  }
  add('postings: each payout has exactly the postings of its state', postingOff.length === 0, `${payouts.length} payouts; ${postingOff.length} off [${postingOff.slice(0, 3).join('; ')}]`);

  // 5. Nothing applied twice.
  const dupPostings = await sql<{ n: string }>`select count(*)::text as n from (select 1 from ledger_postings group by business_id, environment, key having count(*) > 1) d`.execute(db);
  const dupIdem = await sql<{ n: string }>`select count(*)::text as n from (select 1 from payouts where idempotency_key is not null group by business_id, environment, idempotency_key having count(*) > 1) d`.execute(db);
  const dupItems = await sql<{ n: string }>`select count(*)::text as n from (select 1 from payouts where disbursement_item_id is not null group by disbursement_item_id, disbursement_attempt having count(*) > 1) d`.execute(db);
  const twoIds = traffic.payouts.filter((r) => r.ids.size > 1);
  const idemRows = new Map<string, number>();
  for (const p of payouts) if (p.idempotency_key && p.business_id === businessId) idemRows.set(p.idempotency_key, (idemRows.get(p.idempotency_key) ?? 0) + 1);
  // the key as the core stores it: Surface C's (`guide`) payouts in their own namespace
  const acceptedNotOnce = accepted.filter((r) => idemRows.get(coreIdempotencyKey(r.kind === 'guide' ? 'C' : 'A', r.idem)) !== 1).length;
  const fundKeys = new Map<string, number>();
  for (const p of postings) if (p.key.startsWith('fund:idem:') && p.business_id === businessId) fundKeys.set(p.key.slice('fund:idem:'.length), (fundKeys.get(p.key.slice(10)) ?? 0) + 1);
  const fundOk = traffic.funds.filter((f) => f.status === 200);
  const fundNotOnce = fundOk.filter((f) => fundKeys.get(f.idem) !== 1).length;
  const cutPayouts = traffic.payouts.filter((r) => r.cut).length;
  const cutFunds = traffic.funds.length;
  add(
    'idempotency: no payout, posting or key applied twice',
    Number(dupPostings.rows[0]!.n) === 0 && Number(dupIdem.rows[0]!.n) === 0 && Number(dupItems.rows[0]!.n) === 0 && twoIds.length === 0 && acceptedNotOnce === 0 && fundNotOnce === 0,
    `duplicate posting keys ${dupPostings.rows[0]!.n}, payouts sharing an Idempotency-Key ${dupIdem.rows[0]!.n}, batch items paid twice ${dupItems.rows[0]!.n}; ` +
      `${twoIds.length} keys answered with two payout ids; ${acceptedNotOnce} of ${accepted.length} accepted keys not exactly one payout ` +
      `(${cutPayouts} payout requests had their connection cut first); ${fundNotOnce} of ${fundOk.length} fundings not exactly one posting (${cutFunds} sent)`,
  );

  // 5b. Deposits: each transfer (external id) one deposit, credited by exactly one posting of its net amount.
  if (traffic.deposits.length > 0) {
    const deps = await db
      .selectFrom('deposits')
      .select(['id', 'external_id', 'status', 'net_amount'])
      .where('business_id', '=', businessId)
      .where('environment', '=', 'sandbox')
      .execute();
    const byExternal = new Map<string, number>();
    for (const d of deps) byExternal.set(d.external_id, (byExternal.get(d.external_id) ?? 0) + 1);
    const credit = new Map<string, bigint[]>();
    for (const p of postings) {
      const m = /^deposit:([^:]+):credit$/.exec(p.key);
      if (m) credit.set(m[1]!, [...(credit.get(m[1]!) ?? []), BigInt(p.amount)]);
    }
    const answered = traffic.deposits.filter((d) => d.status === 200 || d.status === 201);
    const notOnce = answered.filter((d) => byExternal.get(d.externalId) !== 1 || d.ids.size !== 1).length;
    const badCredit = deps.filter((d) => d.status !== 'credited' || (credit.get(d.id) ?? []).length !== 1 || credit.get(d.id)![0] !== BigInt(d.net_amount)).length;
    add(
      'deposits: each transfer one deposit, credited exactly once',
      notOnce === 0 && badCredit === 0,
      `${traffic.deposits.length} transfers sent (${answered.length} answered), ${deps.length} deposits; ${notOnce} transfers not exactly one deposit; ${badCredit} deposits not credited exactly once with their net amount`,
    );
  }

  // 5c. Surface C: every accepted payout's recipient notified exactly once.
  const guides = accepted.filter((r) => r.kind === 'guide');
  if (guides.length > 0) {
    const notes = await db.selectFrom('notifications').select(['payout_id', 'status', 'failure_code']).where('business_id', '=', businessId).execute();
    const byPayout = new Map<string, string[]>();
    for (const n of notes) byPayout.set(n.payout_id, [...(byPayout.get(n.payout_id) ?? []), n.status === 'failed' ? `failed:${n.failure_code}` : n.status]);
    // Sent, delivered, or failed for a reason a provider (or a STOP) gave: live notifications, tools/chaos/notify.ts.
    const notified = (s: string) => s === 'sent' || s === 'delivered' || (s.startsWith('failed:') && !['failed:null', 'failed:not_delivered', 'failed:not_configured'].includes(s));
    const notOnce = guides.filter((r) => { const v = byPayout.get([...r.ids][0]!) ?? []; return v.length !== 1 || !notified(v[0]!); }).length;
    add('Surface C: each payout notified exactly once', notOnce === 0, `${guides.length} Surface C payouts accepted, ${notes.length} notifications; ${notOnce} payouts without exactly one sent notification`);
  }

  // 6. Webhooks: every event got a 2xx at least once; nothing delivered again after a recorded 2xx.
  const events = await db
    .selectFrom('events')
    .select(['id', 'type', 'created_at'])
    .where('business_id', '=', businessId)
    .where('environment', '=', 'sandbox')
    .where('created_at', '>=', opts.endpointCreatedAt)
    .execute();
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id', 'status', 'completed_at', 'attempt_count'])
    .where('business_id', '=', businessId)
    .execute();
  const okHits = new Map<string, number[]>();
  const allHits = new Map<string, number>();
  for (const h of receiver.hits) {
    allHits.set(h.eventId, (allHits.get(h.eventId) ?? 0) + 1);
    if (h.answered >= 200 && h.answered < 300) okHits.set(h.eventId, [...(okHits.get(h.eventId) ?? []), h.at]);
  }
  // Only the events a Surface A endpoint receives (src/core/webhooks.ts surfaceEventName).
  const never = events.filter((e) => surfaceEventName('A', e.type) !== null && !okHits.has(e.id));
  const deliveryOf = new Map(deliveries.map((d) => [d.event_id, d]));
  let afterRecorded = 0;
  let afterUnrecorded = 0;
  for (const [eventId, times] of okHits) {
    if (times.length < 2) continue;
    const d = deliveryOf.get(eventId);
    const completed = d?.completed_at ? new Date(d.completed_at).getTime() : Infinity;
    // A 2xx that arrives after the delivery was recorded succeeded is a real duplicate; one before
    // is the at-least-once case (a worker killed between the answer and its record).
    if (times.slice(1).some((t) => t > completed + 50)) afterRecorded++;
    else afterUnrecorded++;
  }
  const failedDeliveries = deliveries.filter((d) => d.status !== 'succeeded').length;
  const retriedAfterRecovery = receiver.recoveredAt
    ? [...okHits.entries()].filter(([id, t]) => t[0]! > receiver.recoveredAt && (allHits.get(id) ?? 0) > 1).length
    : 0;
  add(
    'webhooks: every event delivered (2xx) at least once after the receiver recovered',
    never.length === 0 && failedDeliveries === 0 && receiver.badSignatures === 0,
    `${events.length} events, ${deliveries.length} deliveries, ${receiver.hits.length} requests received ` +
      `(${receiver.hits.filter((h) => h.answered !== 200).length} refused while failing, ${retriedAfterRecovery} events got through only after the recovery); ` +
      `${never.length} never got a 2xx, ${failedDeliveries} deliveries not succeeded, ${receiver.badSignatures} bad signatures`,
  );
  add(
    'webhooks: none delivered again after a recorded 2xx',
    afterRecorded === 0,
    `${afterRecorded} events delivered again after their 2xx was recorded; ${afterUnrecorded} delivered twice because a worker died between the 2xx and its record (at least once, allowed)`,
  );

  // Live traffic (tools/chaos/live.ts): the bank files and the live deposits.
  if (opts.liveCredits) {
    const files = await sql<{ rail: string; direction: string; status: string; n: string }>`
      select case when rail = 'ach' then 'ach' else 'sepa' end as rail, direction, status, count(*)::text as n
      from rail_files group by 1, direction, status`.execute(db);
    const count = (d: string, st: string, rail?: 'ach' | 'sepa') =>
      files.rows.filter((r) => r.direction === d && r.status === st && (!rail || r.rail === rail)).reduce((a, r) => a + Number(r.n), 0);
    const unsent = files.rows.filter((r) => r.direction === 'outbound' && r.status !== 'uploaded').reduce((a, r) => a + Number(r.n), 0);
    const quarantined = count('inbound', 'quarantined');
    const unmatched = await db.selectFrom('rail_events').select('id').where('payout_id', 'is', null).where('deposit_id', 'is', null).execute();
    const waiting = await db.selectFrom('rail_instructions').select('payout_id').where('status', 'in', ['queued', 'in_file', 'accepted']).execute();
    add(
      'live rail: every file sent, every answer read, nothing unmatched',
      unsent === 0 && quarantined === 0 && unmatched.length === 0 && waiting.length === 0,
      `${count('outbound', 'uploaded', 'sepa')} pain.001 and ${count('outbound', 'uploaded', 'ach')} NACHA files uploaded (${unsent} not), ` +
        `${count('inbound', 'processed', 'sepa')} SEPA and ${count('inbound', 'processed', 'ach')} ACH answer files read, ${quarantined} quarantined; ` +
        `${unmatched.length} unmatched statuses; ${waiting.length} payments still waiting for the bank`,
    );
    // Bank deposits only: on-chain ones are audited by tools/chaos/solana.ts.
    const deposits = await db.selectFrom('deposits').select(['id', 'external_id', 'status', 'amount']).where('environment', '=', 'live').where('source', '<>', 'crypto').execute();
    const byRef = new Map<string, typeof deposits>();
    for (const d of deposits) byRef.set(d.external_id, [...(byRef.get(d.external_id) ?? []), d]);
    const wrong = opts.liveCredits.filter((c) => {
      const ds = byRef.get(c.reference) ?? [];
      return ds.length !== 1 || ds[0]!.status !== 'credited' || BigInt(ds[0]!.amount) !== BigInt(c.amountMinor);
    });
    const bankIds = new Set(deposits.map((d) => d.id));
    const credited = (await db.selectFrom('ledger_postings').select('key').where('environment', '=', 'live').where('key', 'like', 'deposit:%:credit').execute()).filter((p) =>
      bankIds.has(p.key.split(':')[1]!),
    );
    add(
      'live deposits: each camt.054 credit one deposit, credited once (also when sent twice)',
      wrong.length === 0 && credited.length === deposits.length,
      `${opts.liveCredits.length} credits sent (${opts.liveCredits.filter((c) => c.copies > 1).length} twice), ${deposits.length} live deposits, ${credited.length} credit postings; ` +
        `${wrong.length} wrong [${wrong.slice(0, 3).map((c) => c.reference).join(', ')}]`,
    );
  }
  checks.push(...(await securityChecks(db)));
  return checks;
}
