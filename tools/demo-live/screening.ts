/**
 * The screening part of `npm run demo:live` (docs/screening.md, docs/payee-verification.md): a
 * clear payout, a payout to an OFAC-listed bank held before its rail and released by two operators
 * with `npm run admin -- screening review` (real CLI processes beside the service, on the demo's
 * PostgreSQL), and a sepa_eur payout whose payee the test bank knows under another name (a
 * Verification of Payee close match), held with the bank's name and paid once the business confirms.
 */
import { spawnSync } from 'node:child_process';
import type { DemoContext } from './partner';

/** What the admin CLI needs to reach the service's database and Temporal. */
export interface AdminEnv {
  DATABASE_URL: string;
  TEMPORAL_ADDRESS: string;
}

/** Runs `npm run admin -- screening review <args>` as its own process; returns its parsed `--json` output. Throws on a non-zero exit. */
function review(env: AdminEnv, args: string[]): any {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/admin.ts', 'screening', 'review', ...args, '--json'], { env: { ...process.env, ...env, LOG_LEVEL: 'warn' }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`admin screening review ${args.join(' ')}: exit ${r.status}: ${r.stderr.trim()}`);
  return JSON.parse(r.stdout);
}

/** See the module comment. Throws when a payout does not end as described. */
export async function screeningPart(ctx: DemoContext, admin: AdminEnv | null): Promise<void> {
  const { call, live, until } = ctx;
  const get = (id: string) => call('GET', `/v1/payouts/${id}`, live);
  const ach = (name: string, kind: string, reference: string) => ({
    channel: 'ach_usd',
    recipient: { type: 'bank_account', holder_name: name, account_number: '123456789', routing_number: '021000021', account_type: 'checking', recipient_kind: kind },
    source_amount: '20',
    reference,
  });
  console.log('\nsanctions screening (live: OFAC SDN, the repository\'s copy of the official CSV set)');
  const clear = await call('POST', '/v1/payouts', live, ach('Maria Garcia Lopez', 'individual', 'Demo screened clear'));
  const listed = await call('POST', '/v1/payouts', live, ach('BANCO NACIONAL DE CUBA', 'business', 'Demo screened listed'));
  const held = await until(async () => ((await get(listed.id)).screening?.status === 'in_review' ? get(listed.id) : null), 60_000);
  if (!held) throw new Error(`payout ${listed.id} was not held for screening review`);
  console.log(`payout ${listed.id} to "BANCO NACIONAL DE CUBA": ${held.status}, held for review (case ${held.screening.case_id}): ${held.screening.reason}`);
  const cleared = await until(async () => ((await get(clear.id)).status === 'succeeded' ? get(clear.id) : null), 60_000);
  console.log(`payout ${clear.id} to "Maria Garcia Lopez": ${cleared?.status ?? 'not paid'} (screened clear)`);
  if (!cleared) throw new Error(`payout ${clear.id} was not paid`);
  if (admin) {
    const caseId = held.screening.case_id as string;
    const shown = review(admin, ['show', caseId]);
    console.log(`operator alice@ops: screening review show ${caseId}: best hit ${shown.hits[0]?.entry_name} (${shown.hits[0]?.list} ${shown.hits[0]?.entry_id}, score ${shown.hits[0]?.score})`);
    review(admin, ['open', caseId, '--operator', 'alice@ops']);
    console.log('operator alice@ops: screening review open (takes it into review; she may not release it herself)');
    review(admin, ['release', caseId, '--operator', 'bob@ops', '--reason', 'OFAC licence on file for this transaction']);
    console.log('operator bob@ops:   screening review release (four eyes: a second operator)');
    const paid = await until(async () => ((await get(listed.id)).status === 'succeeded' ? get(listed.id) : null), 60_000);
    console.log(`payout ${listed.id}: ${paid?.status ?? 'not paid'} after the release`);
    if (!paid) throw new Error(`payout ${listed.id} was not paid after its release`);
  } else {
    console.log('(the operators\' release is shown only on PostgreSQL: the admin CLI cannot open the service\'s PGlite while it runs)');
  }

  console.log('\nVerification of Payee (sepa_eur; the test bank knows FR76 3000 6000 0112 3456 7890 189 as "Marie Dupont")');
  const vop = await call('POST', '/v1/payouts', live, {
    channel: 'sepa_eur',
    recipient: { type: 'bank_account', holder_name: 'Maria Dupont', iban: 'FR7630006000011234567890189', recipient_kind: 'individual' },
    source_amount: '25.00',
    reference: 'Demo VoP close match',
  });
  const waiting = await until(async () => ((await get(vop.id)).payee_verification?.status === 'awaiting_confirmation' ? get(vop.id) : null), 60_000);
  if (!waiting) throw new Error(`payout ${vop.id} was not held for its payee`);
  const pv = waiting.payee_verification;
  console.log(`payout ${vop.id} to "Maria Dupont": ${waiting.status}, ${pv.result} (${pv.reason_code}): the bank knows the holder as "${pv.name_returned}"; confirm by ${pv.confirm_by}`);
  await call('POST', `/v1/payouts/${vop.id}/confirm-payee`, live);
  console.log(`POST /v1/payouts/${vop.id}/confirm-payee: the business confirms the payee`);
  const sent = await until(async () => ((await get(vop.id)).status === 'succeeded' ? get(vop.id) : null), 90_000);
  console.log(`payout ${vop.id}: ${sent?.status ?? 'not paid'} after the confirmation`);
  if (!sent) throw new Error(`payout ${vop.id} was not paid after the confirmation`);
}
