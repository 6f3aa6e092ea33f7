import { WorkflowUpdateFailedError } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cancelPayout, transitionPayout } from '../../src/core/payouts';
import { claimUpdate } from '../../workflows/payout.contract';
import { hasPassed } from '../../src/domain/payout-state';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * A workflow task lost after its local activities committed (worker SIGKILLed, task timed out on a
 * loaded machine) runs them again on replay: the claim Update's `claimed` and the main path's
 * `delivering` are then already in PostgreSQL. Found by `npm run chaos` (docs/chaos.md): the
 * retried claim was refused as an illegal transition and the payout sat `delivering` for 30 days,
 * when its expiry would have released a hold whose rail attempt was already made.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h?.close());

async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The status of payout `id` as stored. */
const statusOf = async (id: string) => (await h.db.selectFrom('payouts').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

/** A business funded with 100 USDC. */
async function fundedBusiness() {
  const b = await h.business();
  expect((await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '100' } })).status).toBe(200);
  return b;
}

/** A 10 USDC claim link to `address` of business `b`, once it is awaiting its claim; returns its id. */
async function claimLinkAwaitingClaim(b: { sandbox: string }, address: string): Promise<string> {
  const created = await h.request('POST', '/sandbox/v1/payouts', {
    key: b.sandbox,
    body: { channel: 'claim_link', recipient: { type: 'email', address }, source_amount: '10' },
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  await waitFor(async () => (await statusOf(id)) === 'awaiting_claim', 'awaiting_claim');
  return id;
}

describe('replayed payout transitions (a lost workflow task)', () => {
  it('hasPassed follows the transition table forward only', () => {
    expect(hasPassed('delivering', 'claimed')).toBe(true);
    expect(hasPassed('succeeded', 'delivering')).toBe(true);
    expect(hasPassed('refunded', 'claimed')).toBe(true);
    expect(hasPassed('claimed', 'delivering')).toBe(false);
    expect(hasPassed('delivering', 'failed')).toBe(false);
    expect(hasPassed('canceled', 'awaiting_claim')).toBe(true);
    expect(hasPassed('awaiting_claim', 'awaiting_claim')).toBe(false);
  });

  it('a claim whose claimed and delivering were committed by a lost task is accepted and delivered once; expiry never touches it', async () => {
    const b = await fundedBusiness();
    const id = await claimLinkAwaitingClaim(b, 'ana@example.com');
    const status = () => statusOf(id);

    // What the lost task committed before it died: claimed, then delivering.
    await transitionPayout(h.core, id, 'claimed', { claimMethod: 'bank_transfer' });
    await transitionPayout(h.core, id, 'delivering');
    // Replays of those moves leave the row where it is; an expiry applies only from awaiting_claim.
    expect((await transitionPayout(h.core, id, 'claimed', { claimMethod: 'bank_transfer' })).status).toBe('delivering');
    expect((await transitionPayout(h.core, id, 'failed', { failure: { code: 'claim_expired', message: 'x' }, onlyFrom: ['awaiting_claim'] })).status).toBe('delivering');

    // A new claim request is refused by the core (the row is past awaiting_claim) ...
    const again = await h.request('POST', `/sandbox/v1/sandbox/payouts/${id}/claim`, { key: b.sandbox, body: { method: 'bank_transfer' } });
    expect(again.status).toBe(409);
    // ... while the server re-delivers the lost task's Update to the workflow, which still thinks
    // awaiting_claim: it is accepted, follows the row and delivers (before the fix: refused as an
    // illegal transition, and the payout waited out its 30-day window).
    const result = await h.core.temporal.workflow.getHandle(id).executeUpdate(claimUpdate, { args: [{ method: 'bank_transfer' }] });
    expect(result).toBe('claimed');
    await waitFor(async () => (await status()) === 'succeeded', 'succeeded');
    const postings = (await h.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${id}:%`).execute()).map((p) => p.key).sort();
    expect(postings).toEqual([`payout:${id}:hold`, `payout:${id}:settle`]);
    const bal = (await h.request('GET', '/sandbox/v1/balance', { key: b.sandbox })).body;
    expect(bal.held).toBe('0.00');
  });

  it('a claim replayed after a lost task delivered and failed the payout is refused, and the workflow ends at once instead of waiting out the window', async () => {
    const b = await fundedBusiness();
    const id = await claimLinkAwaitingClaim(b, 'bo@example.com');
    const status = () => statusOf(id);

    // What the lost task committed before it died: claimed, delivering, and a final rail failure
    // (its release of the hold included).
    await transitionPayout(h.core, id, 'claimed', { claimMethod: 'bank_transfer' });
    await transitionPayout(h.core, id, 'delivering');
    await transitionPayout(h.core, id, 'failed', {
      failure: { code: 'invalid_destination', message: 'The destination account does not exist' },
      attempt: { number: 1, status: 'failed', errorCode: 'invalid_destination', errorMessage: 'The destination account does not exist' },
    });

    // The server re-delivers the lost task's claim Update to a run that still thinks awaiting_claim:
    // the handler follows the row, finds it final and refuses the claim ...
    const handle = h.core.temporal.workflow.getHandle(id);
    await expect(handle.executeUpdate(claimUpdate, { args: [{ method: 'bank_transfer' }] })).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    // ... and the run ends with the row's status (before the fix it went back to waiting for a
    // claim that could no longer come, until the 30-day window ran out).
    const ended = await Promise.race([
      handle.result(),
      new Promise<'still running'>((r) => setTimeout(() => r('still running'), 15_000)),
    ]);
    expect(ended).toEqual({ payoutId: id, status: 'failed' });
    expect(await status()).toBe('failed');
    const postings = (await h.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${id}:%`).execute()).map((p) => p.key).sort();
    expect(postings).toEqual([`payout:${id}:hold`, `payout:${id}:release`]);
    const events = (await h.db.selectFrom('events').select('type').where('object_id', '=', id).execute()).map((e) => e.type).sort();
    expect(events.filter((t) => t === 'payout.failed')).toHaveLength(1);
  });

  it('the effect of a claim or cancel Update is a regular activity scheduled by the task that accepted the Update, never a local activity of the speculative task', async () => {
    // A local activity in the Update's speculative task commits even when that task is lost and
    // the server drops the Update: chaos found the row failed (delivered by the lost task) while
    // the run waited out its 30-day claim window, never having heard of the claim.
    const b = await fundedBusiness();
    for (const action of ['claim', 'cancel'] as const) {
      const id = await claimLinkAwaitingClaim(b, `${action}@example.com`);
      const r =
        action === 'claim'
          ? await h.request('POST', `/sandbox/v1/sandbox/payouts/${id}/claim`, { key: b.sandbox, body: { method: 'bank_transfer' } })
          : { status: (await cancelPayout(h.core, { businessId: b.id, environment: 'sandbox', keyId: 'k', role: 'owner', policy: null }, id)).status === 'canceled' ? 200 : 500 };
      expect(r.status).toBe(200);
      const { events } = await h.core.temporal.workflow.getHandle(id).fetchHistory();
      const accepted = events!.findIndex((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
      expect(accepted).toBeGreaterThan(0);
      const effect = events!
        .slice(accepted + 1)
        .find((e) => e.activityTaskScheduledEventAttributes || e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
      expect(effect?.activityTaskScheduledEventAttributes?.activityType?.name).toBe('payoutTransition');
    }
  });

  it('a payout claimed before Update effects became activities replays on today\'s code (the patch keeps its local activity)', async () => {
    // Recorded with the workflow as of commit e405550: claim link opened, claimed (local activity
    // in the Update handler), delivered, succeeded. Without the `patched` gate this replay fails
    // with a nondeterminism error, which would fail every such payout still running at a deploy.
    const json = JSON.parse(readFileSync(new URL('../fixtures/histories/payout-claim-before-update-activities.json', import.meta.url), 'utf8'));
    // (History.fromObject rather than the SDK's JSON reader: two protobufjs copies in node_modules.)
    const history = temporal.api.history.v1.History.fromObject(json);
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, 'po_recorded')).resolves.toBeUndefined();
  });

  it.each(['succeeded', 'refunded', 'timeout-once', 'invalid-destination', 'running-slow', 'running-awaiting-claim'])(
    'a sandbox payout recorded before the rail seam (%s) replays on today\'s code',
    async (name) => {
      // Recorded on 2026-11-25 with the workflow as of commit 0ca5654, before the rail adapter seam
      // (docs/rails.md): four finished payouts and two still running (mid-arrival wait, awaiting a
      // claim). The seam must leave every command these runs already recorded where it was.
      const json = JSON.parse(readFileSync(new URL(`../fixtures/histories/payout-2026-11-25-${name}.json`, import.meta.url), 'utf8'));
      const history = temporal.api.history.v1.History.fromObject(json);
      await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, `po_${name}`)).resolves.toBeUndefined();
    },
  );

  it.each(['succeeded', 'refunded', 'timeout-once', 'invalid-destination'])(
    'a sandbox payout recorded after the move to delivering and rail attempt 1 became one local activity (%s) replays on today\'s code',
    async (name) => {
      // Recorded on 2026-11-26 by test/workflows/payout-cost.test.ts (RECORD_PAYOUT_HISTORIES=2026-11-26):
      // payoutTransition to delivering with deliverAttempt 1, whose recorded result carries the
      // rail's answer; the histories recorded before (above) carry none and replay the second call.
      const json = JSON.parse(readFileSync(new URL(`../fixtures/histories/payout-2026-11-26-${name}.json`, import.meta.url), 'utf8'));
      const history = temporal.api.history.v1.History.fromObject(json);
      await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, `po_one_step_${name}`)).resolves.toBeUndefined();
    },
  );

  it('two concurrent claims of one payout both get its claim (one Update id per payout), and it is claimed once', async () => {
    const b = await fundedBusiness();
    const id = await claimLinkAwaitingClaim(b, 'twice@example.com');
    // Before: the second was refused by the validator while the first was being applied (409).
    const claim = () => h.request('POST', `/sandbox/v1/sandbox/payouts/${id}/claim`, { key: b.sandbox, body: { method: 'bank_transfer' } });
    const [first, second] = await Promise.all([claim(), claim()]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const { events } = await h.core.temporal.workflow.getHandle(id).fetchHistory();
    expect(events!.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toHaveLength(1);
    await waitFor(async () => (await statusOf(id)) === 'succeeded', 'succeeded');
  });
});
