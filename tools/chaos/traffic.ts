/**
 * The chaos run's traffic (Surface A, sandbox): seeded, bounded, mixed. Payouts with every sandbox
 * outcome (the magic `reference` values of src/sandbox/rails.ts), claim links claimed, left
 * waiting, or expired (`sandbox:claim_expired`: a 2-second claim window), funding, reads, and
 * small disbursements that are launched, paused, resumed and retried (retry-failed). A share of
 * the writes has its connection cut and is retried with the same Idempotency-Key. Everything the
 * clients were told is recorded for the audit.
 */
import type { ChaosClient } from './client';
import type { Rng } from './rng';

/** Final state the sandbox promises for a payout with this reference (docs/sandbox.md). */
export const EXPECTED: Record<string, { status: string; code: string | null }> = {
  '': { status: 'succeeded', code: null },
  'sandbox:invalid_destination': { status: 'failed', code: 'invalid_destination' },
  'sandbox:recipient_rejected_by_provider': { status: 'failed', code: 'recipient_rejected_by_provider' },
  'sandbox:limit_exceeded': { status: 'failed', code: 'limit_exceeded' },
  'sandbox:provider_declined': { status: 'failed', code: 'provider_declined' },
  'sandbox:provider_timeout': { status: 'failed', code: 'provider_timeout' },
  'sandbox:provider_timeout_once': { status: 'succeeded', code: null },
  'sandbox:refunded_by_provider': { status: 'refunded', code: 'refunded_by_provider' },
  'sandbox:slow': { status: 'succeeded', code: null },
  'sandbox:claim_expired': { status: 'failed', code: 'claim_expired' },
};

/** The references used for bank payouts and disbursement items (plain ones weigh most). */
const BANK_REFERENCES: readonly (readonly [number, string])[] = [
  [8, ''],
  [1, 'sandbox:invalid_destination'],
  [1, 'sandbox:recipient_rejected_by_provider'],
  [1, 'sandbox:limit_exceeded'],
  [1, 'sandbox:provider_declined'],
  [1, 'sandbox:provider_timeout'],
  [1, 'sandbox:provider_timeout_once'],
  [2, 'sandbox:refunded_by_provider'],
  [1, 'sandbox:slow'],
];

const BANK_RECIPIENT = { type: 'bank_account', holder_name: 'Ana López', clabe: '032180000118359719', recipient_kind: 'individual' };
const PHONE_RECIPIENT = { type: 'phone', number: '+525512345678' };

/** What the clients were told about one POST /payouts (all tries share the Idempotency-Key). */
export interface PayoutRecord {
  idem: string;
  /** bank: Surface A spei_mxn; claim: Surface A claim_link; guide: Surface C payout (a claim link, notified by sms); live: live sepa_eur to the test bank (tools/chaos/live.ts). */
  kind: 'bank' | 'claim' | 'guide' | 'live';
  reference: string;
  /** Claim links: claimed by the recipient, left waiting, or left to expire. */
  plan: 'claim' | 'wait' | 'expire' | null;
  /** Final HTTP status (0: gave up). */
  status: number;
  /** Every payout id any answer carried (must be one). */
  ids: Set<string>;
  cut: boolean;
  claimStatus?: number;
}

export interface FundRecord {
  idem: string;
  amount: string;
  status: number;
}

/** One simulated bank transfer into the business's virtual account (POST /sandbox/deposits). */
export interface DepositRecord {
  externalId: string;
  amount: string;
  status: number;
  /** Every deposit id any answer carried (must be one). */
  ids: Set<string>;
}

export interface DisbursementRecord {
  id: string | null;
  items: number;
  steps: string[];
  finalStatus: string | null;
  error: string | null;
}

/** Everything the traffic did, for the audit and the report. */
export interface TrafficLog {
  payouts: PayoutRecord[];
  funds: FundRecord[];
  deposits: DepositRecord[];
  disbursements: DisbursementRecord[];
  reads: number;
  readErrors: number;
  background: Promise<void>[];
  unexpected: string[];
}

export function newTrafficLog(): TrafficLog {
  return { payouts: [], funds: [], deposits: [], disbursements: [], reads: 0, readErrors: 0, background: [], unexpected: [] };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let counter = 0;
const nextKey = (run: string, what: string) => `chaos-${run}-${what}-${++counter}`;

function amount(rng: Rng, min = 1, max = 40): string {
  return `${rng.int(min, max)}.${String(rng.int(0, 99)).padStart(2, '0')}`;
}

/** Polls GET /payouts/{id} until `pred` holds or `timeoutMs` passes; returns the last body. */
async function waitPayout(c: ChaosClient, id: string, pred: (p: any) => boolean, timeoutMs: number): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // One poll may retry until the wait's own deadline: giving up earlier would only poll again.
    const r = await c.send('GET', `/payouts/${id}`, { deadlineMs: Math.max(30_000, deadline - Date.now()) });
    if (r.status === 200 && pred(r.body)) return r.body;
    if (Date.now() > deadline) return r.body;
    await sleep(500);
  }
}

/** One POST /payouts with its record. */
async function createPayout(c: ChaosClient, rng: Rng, log: TrafficLog, run: string, kind: 'bank' | 'claim'): Promise<PayoutRecord> {
  let reference = '';
  let plan: PayoutRecord['plan'] = null;
  if (kind === 'bank') reference = rng.weighted(BANK_REFERENCES);
  else {
    plan = rng.weighted([
      [3, 'claim'],
      [1, 'wait'],
      [2, 'expire'],
    ] as const);
    if (plan === 'expire') reference = 'sandbox:claim_expired';
    else if (plan === 'claim') reference = rng.weighted(BANK_REFERENCES.filter(([, r]) => r !== 'sandbox:slow'));
  }
  const rec: PayoutRecord = { idem: nextKey(run, 'po'), kind, reference, plan, status: 0, ids: new Set(), cut: rng.chance(0.25) };
  log.payouts.push(rec);
  const body = {
    channel: kind === 'bank' ? 'spei_mxn' : 'claim_link',
    recipient: kind === 'bank' ? BANK_RECIPIENT : PHONE_RECIPIENT,
    source_amount: amount(rng),
    ...(reference ? { reference } : {}),
  };
  const r = await c.send('POST', '/payouts', { body, idem: rec.idem, cut: rec.cut });
  rec.status = r.status;
  if (r.body?.id) rec.ids.add(r.body.id);
  // Ask once more with the same key: the replay must name the same payout.
  if (r.status === 201 && rng.chance(0.2)) {
    const again = await c.send('POST', '/payouts', { body, idem: rec.idem });
    if (again.body?.id) rec.ids.add(again.body.id);
  }
  return rec;
}

/** A claim link the recipient claims once it is awaiting_claim (runs in the background). */
async function claimLater(c: ChaosClient, rec: PayoutRecord, log: TrafficLog): Promise<void> {
  const id = [...rec.ids][0];
  if (!id) return;
  // On an overloaded machine a workflow start can lag minutes behind its payout (the relay).
  const p = await waitPayout(c, id, (b) => b.status !== 'submitted', 300_000);
  if (p?.status !== 'awaiting_claim') {
    log.unexpected.push(`claim link ${id} was ${p?.status} before its claim`);
    return;
  }
  let r = await c.send('POST', `/sandbox/payouts/${id}/claim`, { body: { method: 'bank_transfer' }, idem: `${rec.idem}-claim` });
  // 409 while still awaiting_claim: an earlier try of this claim is still being applied; ask again.
  for (let i = 0; i < 20 && r.status === 409 && r.tries > 1; i++) {
    const now = await waitPayout(c, id, () => true, 0);
    if (now?.status !== 'awaiting_claim') break;
    await sleep(2000);
    r = await c.send('POST', `/sandbox/payouts/${id}/claim`, { body: { method: 'bank_transfer' }, idem: `${rec.idem}-claim` });
  }
  rec.claimStatus = r.status;
  // A retried claim (the first try's answer was lost) finds the payout already claimed and moving on.
  if (r.status === 409 && r.tries > 1 && r.body?.error?.code === 'invalid_state') {
    const now = await waitPayout(c, id, () => true, 0);
    if (now?.claimed_at || now?.claim?.claimed_at || ['claimed', 'delivering', 'succeeded', 'failed', 'refunded'].includes(now?.status)) return;
  }
  if (r.status !== 200) log.unexpected.push(`claim of ${id}: HTTP ${r.status} ${JSON.stringify(r.body?.error ?? r.body)}`);
}

/**
 * A small disbursement: create (items with mixed outcomes), submit, approve with the second key,
 * launch, pause, resume, wait until done, retry-failed once, wait again.
 */
async function disbursementFlow(owner: ChaosClient, approver: ChaosClient, rng: Rng, log: TrafficLog, run: string): Promise<void> {
  const n = rng.int(5, 25);
  const rec: DisbursementRecord = { id: null, items: n, steps: [], finalStatus: null, error: null };
  log.disbursements.push(rec);
  const fail = (msg: string) => {
    rec.error = msg;
    log.unexpected.push(`disbursement ${rec.id ?? '(new)'}: ${msg}`);
  };
  const items: { channel: string; source_amount: string; recipient: typeof BANK_RECIPIENT; reference?: string }[] = Array.from({ length: n }, () => {
    const reference = rng.weighted(BANK_REFERENCES.filter(([, r]) => r !== 'sandbox:slow'));
    return { channel: 'spei_mxn', source_amount: amount(rng, 1, 10), recipient: BANK_RECIPIENT, ...(reference ? { reference } : {}) };
  });
  // One item always fails with a retryable code, so that retry-failed has something to retry.
  items[0]!.reference = 'sandbox:provider_timeout';
  const idem = nextKey(run, 'dsb');
  const created = await owner.send('POST', '/disbursements', { body: { name: `Chaos ${idem}`, items }, idem, cut: rng.chance(0.25) });
  if (created.status !== 201 && created.status !== 200) return fail(`create: HTTP ${created.status} ${JSON.stringify(created.body)}`);
  const id: string = created.body.id;
  rec.id = id;
  rec.steps.push('created');
  const submitted = await owner.send('POST', `/disbursements/${id}/submit-for-approval`, { idem: `${idem}-submit` });
  let revisionId: string | undefined = submitted.status === 200 ? submitted.body.revision_id : undefined;
  // A retried submit whose first try was applied (its API process died before the idempotency
  // record was completed, so the takeover ran it again) finds the batch already awaiting approval.
  if (submitted.status === 409 && submitted.tries > 1 && submitted.body?.error?.code === 'invalid_state') {
    const now = await owner.send('GET', `/disbursements/${id}`);
    if (now.status === 200 && now.body.status === 'awaiting_approval') revisionId = now.body.revision_id;
  }
  if (!revisionId) return fail(`submit: HTTP ${submitted.status} ${JSON.stringify(submitted.body)}`);
  const approved = await approver.send('POST', `/disbursements/${id}/approvals/${revisionId}/approve`, { idem: `${idem}-approve` });
  if (approved.status !== 200) return fail(`approve: HTTP ${approved.status} ${JSON.stringify(approved.body)}`);
  rec.steps.push('approved');
  const launched = await owner.send('POST', `/disbursements/${id}/launch`, { idem: `${idem}-launch`, cut: rng.chance(0.3) });
  // A retried launch whose first try was applied finds the batch already running.
  const launchApplied = launched.status === 409 && launched.tries > 1 && launched.body?.error?.code === 'invalid_state';
  if (launched.status !== 200 && !launchApplied) return fail(`launch: HTTP ${launched.status} ${JSON.stringify(launched.body)}`);
  rec.steps.push('launched');
  await sleep(rng.int(100, 800));
  const paused = await owner.send('POST', `/disbursements/${id}/pause`, { idem: `${idem}-pause`, cut: rng.chance(0.3) });
  // 409 invalid_state: already completed, or a retried pause whose first try was applied.
  if (paused.status !== 200 && !(paused.status === 409 && paused.body?.error?.code === 'invalid_state')) {
    return fail(`pause: HTTP ${paused.status} ${JSON.stringify(paused.body)}`);
  }
  const afterPause = await owner.send('GET', `/disbursements/${id}`);
  if (afterPause.body?.status === 'paused') {
    rec.steps.push('paused');
    await sleep(rng.int(500, 2500));
    const resumed = await owner.send('POST', `/disbursements/${id}/resume`, { idem: `${idem}-resume`, cut: rng.chance(0.3) });
    const afterResume = await owner.send('GET', `/disbursements/${id}`);
    if (resumed.status !== 200 && afterResume.body?.status === 'paused') return fail(`resume: HTTP ${resumed.status} ${JSON.stringify(resumed.body)}`);
    rec.steps.push('resumed');
  }
  const waitDone = async () => {
    const deadline = Date.now() + 600_000;
    for (;;) {
      const g = await owner.send('GET', `/disbursements/${id}`);
      if (g.status === 200 && (g.body.status === 'completed' || g.body.status === 'completed_with_failures')) return g.body;
      if (Date.now() > deadline) return g.body;
      await sleep(1000);
    }
  };
  let d = await waitDone();
  rec.finalStatus = d?.status ?? null;
  if (d?.status === 'completed_with_failures') {
    const retried = await owner.send('POST', `/disbursements/${id}/items/retry-failed`, { idem: `${idem}-retry`, cut: rng.chance(0.3) });
    // 409 invalid_state: a retried request whose first try was applied, or nothing retryable left.
    const retriedApplied = retried.status === 409 && retried.body?.error?.code === 'invalid_state';
    if (retried.status === 200 || retriedApplied) {
      rec.steps.push('retry-failed');
      d = await waitDone();
      rec.finalStatus = d?.status ?? null;
    } else if (retried.status !== 402) {
      // 402: the balance does not cover the retry (a legitimate answer, nothing held).
      return fail(`retry-failed: HTTP ${retried.status} ${JSON.stringify(retried.body)}`);
    }
  }
  if (rec.finalStatus !== 'completed' && rec.finalStatus !== 'completed_with_failures') fail(`still ${rec.finalStatus} after 600 s`);
}

/**
 * One client's loop until `until` (ms since epoch): picks an operation, waits its answer, repeats.
 * Disbursements and claims run in the background (at most `maxDisbursements` at once), recorded
 * in `log.background`.
 */
export async function clientLoop(
  owner: ChaosClient,
  approver: ChaosClient,
  rng: Rng,
  log: TrafficLog,
  run: string,
  until: number,
  active: { disbursements: number },
  maxDisbursements = 2,
  virtualAccountId: string | null = null,
  guide: { client: ChaosClient; recipientId: string } | null = null,
): Promise<void> {
  while (Date.now() < until) {
    const op = rng.weighted([
      [50, 'payout'],
      [18, 'claim'],
      [6, 'fund'],
      [virtualAccountId ? 6 : 0, 'deposit'],
      [guide ? 5 : 0, 'guide'],
      [20, 'read'],
      [6, 'disbursement'],
    ] as const);
    if (op === 'payout') {
      await createPayout(owner, rng, log, run, 'bank');
    } else if (op === 'claim') {
      const rec = await createPayout(owner, rng, log, run, 'claim');
      if (rec.status === 201 && rec.plan === 'claim') log.background.push(claimLater(owner, rec, log));
    } else if (op === 'fund') {
      const f: FundRecord = { idem: nextKey(run, 'fund'), amount: amount(rng, 100, 2000), status: 0 };
      log.funds.push(f);
      f.status = (await owner.send('POST', '/sandbox/fund', { body: { amount: f.amount }, idem: f.idem, cut: rng.chance(0.3) })).status;
    } else if (op === 'deposit' && virtualAccountId) {
      // The sending bank's id dedupes the transfer; a cut request is retried with the same one.
      const d: DepositRecord = { externalId: nextKey(run, 'dep'), amount: amount(rng, 50, 500), status: 0, ids: new Set() };
      log.deposits.push(d);
      const r = await owner.send('POST', '/sandbox/deposits', {
        body: { virtual_account_id: virtualAccountId, amount: d.amount, currency: 'USD', external_id: d.externalId },
        idem: d.externalId,
        cut: rng.chance(0.3),
      });
      d.status = r.status;
      if (r.body?.id) d.ids.add(r.body.id);
    } else if (op === 'guide' && guide) {
      // Surface C: a claim link of `amount` USD, the recipient notified by sms; never claimed here.
      const rec: PayoutRecord = { idem: nextKey(run, 'c'), kind: 'guide', reference: '', plan: 'wait', status: 0, ids: new Set(), cut: rng.chance(0.25) };
      log.payouts.push(rec);
      const r = await guide.client.send('POST', '/payouts', {
        body: { recipient_id: guide.recipientId, amount: amount(rng), currency: 'USD', delivery_channel: 'sms', destination: '+525512345678', notification: { send: true, language: 'es' } },
        idem: rec.idem,
        cut: rec.cut,
      });
      rec.status = r.status;
      if (r.body?.id) rec.ids.add(r.body.id);
    } else if (op === 'read') {
      const r = rng.chance(0.5)
        ? await owner.send('GET', '/payouts?limit=50')
        : await owner.send('GET', '/balance');
      log.reads++;
      if (r.status !== 200) log.readErrors++;
    } else if (active.disbursements < maxDisbursements) {
      active.disbursements++;
      log.background.push(
        disbursementFlow(owner, approver, rng.fork(), log, run)
          .catch((err) => void log.unexpected.push(`disbursement flow threw: ${String(err)}`))
          .finally(() => active.disbursements--),
      );
    }
    await sleep(rng.int(0, 60));
  }
}
