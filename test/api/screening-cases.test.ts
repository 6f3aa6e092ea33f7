/**
 * Screening a payout and the review queue (docs/screening.md "Holding payouts"): screenPayout on the
 * sandbox list's magic names, one case per payout, the four-eyes rule of `npm run admin -- screening
 * review`, an audit record per act, the payout's `screening` object and events, and the decision
 * Signal sent after COMMIT (again on a re-run). The workflow's own checks phase is tested elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ClaimantIdentity } from '../../src/core/claim-flow/claimant-identity';
import { verifyAuditChain } from '../../src/core/audit';
import { renderMetrics } from '../../src/core/metrics/scrape';
import { caseOfPayout } from '../../src/core/screening/cases';
import { screenPayout } from '../../src/core/screening/payout-screening';
import { ScreeningService } from '../../src/core/screening/service';
import { screeningConfig } from '../../src/screening/index';
import { runScreeningCommand } from '../../src/main/admin-screening';
import { createHarness, type Harness } from '../helpers/harness';
import { waitFor } from '../helpers/webhook-receiver';

// The identity-at-claim seam is another module's (a stub here): each test says what it returns.
const identities = vi.hoisted(() => new Map<string, ClaimantIdentity>());
vi.mock('../../src/core/claim-flow/claimant-identity', () => ({ claimantIdentity: async (_core: unknown, payoutId: string) => identities.get(payoutId) ?? null }));

const A = '/sandbox/v1';
let h: Harness;
let key: string;
let businessId: string;

beforeAll(async () => {
  h = await createHarness({ worker: false });
  const b = await h.business({ approvalsRequired: 0 });
  key = b.sandbox;
  businessId = b.id;
  expect((await h.request('POST', `${A}/sandbox/fund`, { key, body: { amount: '1000' } })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

/** A sandbox spei_mxn payout to `holder` (extra recipient fields merged in); returns its id. */
async function payoutTo(holder: string): Promise<string> {
  const r = await h.request('POST', `${A}/payouts`, {
    key,
    body: { channel: 'spei_mxn', recipient: { type: 'bank_account', holder_name: holder, clabe: '032180000118359719', recipient_kind: 'individual' }, source_amount: '10' },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.id as string;
}

/** Runs `screening review ...` in process as operator `operator`; returns the exit code and output. */
async function review(operator: string | null, ...args: string[]) {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const err = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const argv = ['review', ...args, ...(operator ? ['--operator', operator] : [])];
    const code = await runScreeningCommand(h.db, argv, {}, { publicUrl: h.config.publicUrl, temporal: async () => h.core.temporal });
    return { code, stdout: log.mock.calls.map((c) => c.join(' ')).join('\n'), stderr: err.mock.calls.map((c) => c.join(' ')).join('\n') };
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
}

const audits = (caseId: string) =>
  h.db.selectFrom('audit_events').select(['action', 'actor_type', 'actor_id', 'after', 'business_id']).where('object_id', '=', caseId).orderBy('seq').execute();
const events = (payoutId: string) => h.db.selectFrom('events').select(['type', 'dedupe_key']).where('object_id', '=', payoutId).orderBy('id').execute();
/** The names of the Signals the payout's workflow received (none when it never started). */
async function signals(payoutId: string): Promise<string[]> {
  try {
    const history = await h.core.temporal.workflow.getHandle(payoutId).fetchHistory();
    return (history.events ?? []).flatMap((e) => (e.workflowExecutionSignaledEventAttributes?.signalName ? [e.workflowExecutionSignaledEventAttributes.signalName] : []));
  } catch {
    return [];
  }
}

describe('screenPayout on the sandbox list', () => {
  it('Jane Doe is clear and opens no case', async () => {
    const id = await payoutTo('Jane Doe');
    const step = await screenPayout(h.core, id);
    expect(step).toEqual({ outcome: 'clear', screeningId: expect.stringMatching(/^scr_/) });
    expect(await caseOfPayout(h.db, id)).toBeUndefined();
    const screening = await h.db.selectFrom('screenings').selectAll().where('id', '=', step.screeningId).executeTakeFirstOrThrow();
    expect(screening).toMatchObject({ reference: id, subject_name: 'Jane Doe', subject_kind: 'individual', outcome: 'clear' });
  });

  it('Sandy Sanctioned opens one case (review), emits payout.screening_review, and a second call reuses it without screening again', async () => {
    const id = await payoutTo('Sandy Sanctioned');
    const step = await screenPayout(h.core, id);
    expect(step).toMatchObject({ outcome: 'review', caseId: expect.stringMatching(/^scc_/) });
    const c = await caseOfPayout(h.db, id);
    expect(c).toMatchObject({ kind: 'sanctions', status: 'open', businessId, environment: 'sandbox', subjectId: id, reviewer: null });
    expect(c!.hits[0]).toMatchObject({ list: 'sandbox', entryName: expect.stringMatching(/Sanctioned/i), score: expect.any(Number), reason: expect.any(String) });

    const before = await h.db.selectFrom('screenings').select('id').where('reference', '=', id).execute();
    expect(await screenPayout(h.core, id)).toEqual(step);
    expect(await h.db.selectFrom('screenings').select('id').where('reference', '=', id).execute()).toHaveLength(before.length);

    expect((await events(id)).filter((e) => e.type === 'payout.screening_review')).toHaveLength(1);
    const got = await h.request('GET', `${A}/payouts/${id}`, { key });
    expect(got.body.screening).toEqual({ status: 'in_review', case_id: c!.id, reason: expect.stringContaining('sanctions') });
    const list = await h.request('GET', `${A}/payouts?limit=5`, { key });
    expect(list.body.data.find((p: { id: string }) => p.id === id).screening.case_id).toBe(c!.id);
    const ev = await h.request('GET', `${A}/events?type=payout.screening_review`, { key });
    expect(ev.status, ev.text).toBe(200);
    expect(ev.body.data.map((e: { data: { object: { id: string } } }) => e.data.object.id)).toContain(id);
  });

  it('Connor Confirmed born 1970-01-01 is refused, recorded as a case rejected by system with its audit record', async () => {
    const r = await h.request('POST', `${A}/payouts`, {
      key,
      body: {
        channel: 'pagomovil_ves',
        recipient: { type: 'pagomovil', phone_number: '+584121234567', bank_code: '0102', national_id: 'V12345678', holder_name: 'Connor Confirmed', date_of_birth: '1970-01-01' },
        source_amount: '10',
      },
    });
    expect(r.status, r.text).toBe(201);
    const step = await screenPayout(h.core, r.body.id);
    expect(step).toMatchObject({ outcome: 'refused', failure: { code: 'screening_rejected', message: 'Refused by sanctions screening: a confirmed match on a sanctions list' } });
    const c = await caseOfPayout(h.db, r.body.id);
    expect(c).toMatchObject({ status: 'rejected', decidedBy: 'system', summary: expect.stringMatching(/^confirmed match: CONFIRMED, Connor \(sandbox SBX-\d+, 1\.00\)/) });
    expect(await audits(c!.id)).toMatchObject([{ action: 'screening_case.rejected', actor_type: 'system', business_id: businessId }]);
    expect(await screenPayout(h.core, r.body.id)).toEqual(step);
    const list = await review('ops@a', 'list', '--status', 'rejected', '--json');
    expect(JSON.parse(list.stdout).cases.map((x: { id: string }) => x.id)).toContain(c!.id);
  });

  it('answers unavailable with SCREENING_UNAVAILABLE_RECHECK when a configured list was never loaded, and opens no case', async () => {
    const service = new ScreeningService(h.db, screeningConfig({ SCREENING_LISTS: 'ofac-sdn-csv', SCREENING_UNAVAILABLE_RECHECK: 'PT2M' }));
    const id = await payoutTo('Jane Doe');
    const step = await screenPayout({ ...h.core, screening: { live: service, sandbox: service } }, id);
    expect(step).toMatchObject({ outcome: 'unavailable', retryAfterMs: 120_000, reasons: [expect.stringContaining('ofac-sdn-csv')] });
    expect(await caseOfPayout(h.db, id)).toBeUndefined();
  });
});

describe('claim links: the claimant is screened', () => {
  const claimLink = async () => {
    const r = await h.request('POST', `${A}/payouts`, { key, body: { channel: 'claim_link', recipient: { type: 'phone', number: '+525512345678' }, source_amount: '5' } });
    expect(r.status, r.text).toBe(201);
    return r.body.id as string;
  };

  it("screens the claimant's identity instead of the recipient: Sandy Sanctioned opens a sanctions case", async () => {
    const id = await claimLink();
    identities.set(id, { subject: { name: 'Sandy Sanctioned', kind: 'individual' }, nameMismatch: null });
    expect(await screenPayout(h.core, id)).toMatchObject({ outcome: 'review' });
    expect(await caseOfPayout(h.db, id)).toMatchObject({ kind: 'sanctions', status: 'open' });
  });

  it('a name mismatch opens a name_mismatch case even when screening is clear', async () => {
    const id = await claimLink();
    identities.set(id, { subject: { name: 'Jane Doe', kind: 'individual' }, nameMismatch: { claimantName: 'Jane Doe', holderName: 'John Roe' } });
    const step = await screenPayout(h.core, id);
    expect(step).toMatchObject({ outcome: 'review' });
    const c = await caseOfPayout(h.db, id);
    expect(c).toMatchObject({ kind: 'name_mismatch', status: 'open', hits: [], summary: expect.stringContaining('"John Roe"') });
    expect((await h.request('GET', `${A}/payouts/${id}`, { key })).body.screening).toMatchObject({ status: 'in_review', reason: expect.stringContaining("account holder's") });
  });

  it('without an identity, a claim link to a phone has no name to match and is clear', async () => {
    const id = await claimLink();
    expect(await screenPayout(h.core, id)).toMatchObject({ outcome: 'clear' });
  });
});

describe('screening review: four eyes', () => {
  it('open by one operator; release by the same is refused (exit 1); by another it releases, audits, emits and signals; a re-run only re-sends the signal', async () => {
    const id = await payoutTo('Sandy Sanctioned');
    const { caseId } = (await screenPayout(h.core, id)) as { caseId: string };
    // The payout's run (started after acceptance; no worker here runs it): the Signals land in its history.
    const run = h.core.temporal.workflow.getHandle(id);
    await waitFor(() => run.describe().then((d) => d.status.name === 'RUNNING', () => false), 'payout workflow started');

    const queue = await review('alice@ops', 'list', '--json');
    expect(queue.code).toBe(0);
    expect(JSON.parse(queue.stdout).cases.find((x: { id: string }) => x.id === caseId)).toMatchObject({ status: 'open', subject_id: id, kind: 'sanctions' });

    const early = await review('bob@ops', 'release', caseId, '--reason', 'no');
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/not in review/);

    expect((await review('alice@ops', 'open', caseId)).code).toBe(0);
    expect(await caseOfPayout(h.db, id)).toMatchObject({ status: 'in_review', reviewer: 'alice@ops' });
    expect((await review('carol@ops', 'open', caseId)).code).toBe(1); // in alice's review

    const noReason = await review('bob@ops', 'release', caseId);
    expect(noReason.code).toBe(2);
    const self = await review('alice@ops', 'release', caseId, '--reason', 'false positive');
    expect(self.code).toBe(1);
    expect(self.stderr).toMatch(/four eyes: alice@ops opened case .* another operator must release it/);
    expect(await caseOfPayout(h.db, id)).toMatchObject({ status: 'in_review', decidedBy: null });

    const rel = await review('bob@ops', 'release', caseId, '--reason', 'date of birth differs from the listed entry', '--json');
    expect(rel.code, rel.stderr).toBe(0);
    const doc = JSON.parse(rel.stdout);
    expect(doc).toMatchObject({ changed: true, case: { status: 'released', reviewer: 'alice@ops', decided_by: 'bob@ops', decision_reason: 'date of birth differs from the listed entry' } });
    expect(doc.signal).toBe('sent');

    expect(await audits(caseId)).toMatchObject([
      { action: 'screening_case.review_started', actor_type: 'operator', actor_id: 'alice@ops', business_id: businessId },
      { action: 'screening_case.released', actor_type: 'operator', actor_id: 'bob@ops', after: { status: 'released', reason: 'date of birth differs from the listed entry' } },
    ]);
    expect((await events(id)).map((e) => e.type)).toEqual(expect.arrayContaining(['payout.screening_review', 'payout.screening_released']));
    expect((await h.request('GET', `${A}/payouts/${id}`, { key })).body.screening).toEqual({ status: 'released', case_id: caseId, reason: 'date of birth differs from the listed entry' });
    expect(await screenPayout(h.core, id)).toMatchObject({ outcome: 'clear' });

    const again = await review('dave@ops', 'release', caseId, '--reason', 'again', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, case: { decided_by: 'bob@ops', decision_reason: 'date of birth differs from the listed entry' } });
    expect(await audits(caseId)).toHaveLength(2);
    expect((await events(id)).filter((e) => e.type === 'payout.screening_released')).toHaveLength(1);
    expect(await signals(id)).toEqual(['screeningDecision', 'screeningDecision']);

    const flip = await review('erin@ops', 'reject', caseId, '--reason', 'changed my mind');
    expect(flip.code).toBe(1);
    expect(flip.stderr).toMatch(/already released/);
    expect(await verifyAuditChain(h.db, { businessId })).toMatchObject({ problems: [] });
    await run.terminate('test done');
  });

  it('the reviewer may reject (the safe direction); the payout shows rejected and screening answers refused', async () => {
    const id = await payoutTo('Sandi Sanctioned');
    const { caseId } = (await screenPayout(h.core, id)) as { caseId: string };
    // The payout's run has ended (here: terminated): the decision is recorded and nothing is signalled.
    const run = h.core.temporal.workflow.getHandle(id);
    await waitFor(() => run.describe().then((d) => d.status.name === 'RUNNING', () => false), 'payout workflow started');
    await run.terminate('test: the run ended');
    expect((await review('alice@ops', 'open', caseId)).code).toBe(0);
    const rej = await review('alice@ops', 'reject', caseId, '--reason', 'same person as the listed entry');
    expect(rej.code, rej.stderr).toBe(0);
    expect(rej.stdout).toMatch(new RegExp(`${caseId} rejected by alice@ops; payout ${id} has no running workflow`));
    expect((await audits(caseId)).map((a) => a.action)).toEqual(['screening_case.review_started', 'screening_case.rejected']);
    expect(await screenPayout(h.core, id)).toMatchObject({ outcome: 'refused', failure: { code: 'screening_rejected', message: expect.stringContaining('same person as the listed entry') } });
    expect((await h.request('GET', `${A}/payouts/${id}`, { key })).body.screening).toMatchObject({ status: 'rejected', case_id: caseId });
    const show = await review(null, 'show', caseId, '--json');
    expect(JSON.parse(show.stdout)).toMatchObject({ id: caseId, status: 'rejected', hits: [expect.objectContaining({ list: 'sandbox', entry_id: expect.any(String), matched_name: expect.stringMatching(/sanctioned/i) })] });
    expect((await review(null, 'show', 'scc_nope')).code).toBe(1);
  });

  it('a decision whose Signal could not be sent exits 1 and says to re-run; the re-run sends it and changes nothing else', async () => {
    const id = await payoutTo('Sandy Sanctioned');
    const { caseId } = (await screenPayout(h.core, id)) as { caseId: string };
    const run = h.core.temporal.workflow.getHandle(id);
    await waitFor(() => run.describe().then((d) => d.status.name === 'RUNNING', () => false), 'payout workflow started');
    const down = vi.spyOn(console, 'error').mockImplementation(() => {});
    const out = vi.spyOn(console, 'log').mockImplementation(() => {});
    let code: number;
    let stderr = '';
    try {
      code = await runScreeningCommand(h.db, ['review', 'reject', caseId, '--reason', 'listed', '--operator', 'alice@ops'], {}, {
        publicUrl: h.config.publicUrl,
        temporal: async () => {
          throw new Error('connection refused');
        },
      });
      stderr = down.mock.calls.flat().join(' ');
    } finally {
      down.mockRestore();
      out.mockRestore();
    }
    expect(code).toBe(1);
    expect(stderr).toMatch(/is rejected, but the payout's workflow was not signalled \(connection refused\); run the same command again/);
    expect(await signals(id)).toEqual([]);
    const again = await review('bob@ops', 'reject', caseId, '--reason', 'other words', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, signal: 'sent', case: { decided_by: 'alice@ops', decision_reason: 'listed' } });
    expect(await signals(id)).toEqual(['screeningDecision']);
    await run.terminate('test done');
  });
});

describe('metrics', () => {
  it('screening_cases_total counts by kind and decision; screening_review_queue_oldest_seconds is the oldest undecided case', async () => {
    const text = await renderMetrics(h.db);
    expect(text).toMatch(/screening_cases_total\{kind="sanctions",decision="opened"\} [1-9]/);
    expect(text).toMatch(/screening_cases_total\{kind="sanctions",decision="released"\} 1/);
    expect(text).toMatch(/screening_cases_total\{kind="name_mismatch",decision="opened"\} 1/);
    const oldest = await h.db.selectFrom('screening_cases').select('opened_at').where('status', 'in', ['open', 'in_review']).orderBy('opened_at').executeTakeFirstOrThrow();
    await h.db.updateTable('screening_cases').set({ opened_at: new Date(oldest.opened_at.getTime() - 3600_000) }).where('opened_at', '=', oldest.opened_at).execute();
    const age = Number(/^screening_review_queue_oldest_seconds (\d+)/m.exec(await renderMetrics(h.db))?.[1]);
    expect(age).toBeGreaterThanOrEqual(3600);
    expect(age).toBeLessThan(3600 + 600);
  });
});
