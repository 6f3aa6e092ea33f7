/**
 * The real 30-day claim window of a claim-link payout, run in seconds on Temporal's time-skipping
 * test server (docs/architecture.md "Tests": the time-skipping server only for timers). The payout lives in an
 * in-memory PGlite database; the worker runs the real payoutWorkflow and payout activities.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, Worker } from '@temporalio/worker';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createPayoutActivities } from '../../activities/payouts';
import { loadConfig } from '../../src/config';
import { fundSandbox, getBalanceView } from '../../src/core/balance';
import { renderBalance } from '../../src/wire/surface-a/balance';
import { createBusiness } from '../../src/core/businesses';
import type { Caller, Core } from '../../src/core/context';
import { insertPayout, payoutStart, preparePayout } from '../../src/core/payouts';
import { migrate, openDb } from '../../src/db/connection';
import { resolveTestServer } from '../../src/temporal/binaries';
import { typedAttributes } from '../../src/temporal/client';
import { SA, SEARCH_ATTRIBUTE_NAMES } from '../../src/temporal/search-attributes';
import { payoutWorkflow } from '../../workflows/payout';
import { statusQuery } from '../../workflows/payout.contract';
import { sandboxAdapters } from '../../src/sandbox/adapters';
import { createScreeningServices } from '../../src/core/screening/service';

const DAY = 24 * 3600 * 1000;

let env: TestWorkflowEnvironment;
let core: Core;
let caller: Caller;

beforeAll(async () => {
  try {
    Runtime.install({ logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as any });
  } catch {
    // already installed in this process
  }
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: resolveTestServer() } },
  });
  // The test server knows no custom search attributes until they are registered.
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(SEARCH_ATTRIBUTE_NAMES.map((n) => [n, 2 /* KEYWORD */])),
  });
  const db = await openDb({ memory: true });
  await migrate(db);
  const config = loadConfig({ TASK_QUEUE: 'payout-claim-expiry', SANDBOX_ARRIVAL: 'PT0.05S', LOG_LEVEL: 'silent', PORT: '3999' });
  core = { db, temporal: env.client, config, log: pino({ level: 'silent' }), now: () => new Date(), sandbox: sandboxAdapters(), screening: createScreeningServices(db, config) };
  const biz = await createBusiness(db, { name: 'Time skipper', verified: true });
  const key = await db.selectFrom('api_keys').select('id').where('business_id', '=', biz.businessId).where('environment', '=', 'sandbox').executeTakeFirstOrThrow();
  caller = { businessId: biz.businessId, environment: 'sandbox', keyId: key.id, role: 'owner', policy: null };
  await fundSandbox(core, caller, '100');
}, 180_000);

afterAll(async () => {
  await env?.teardown();
  await core?.db.destroy();
});

describe('claim link expiry after 30 days (time-skipping server)', () => {
  it('waits the full 30 days, then fails with claim_expired and returns the funds', async () => {
    const prepared = await preparePayout(core, caller, {
      channel: 'claim_link',
      recipient: { type: 'phone', number: '+525512345678' },
      sourceAmount: '40',
      message: 'Your payment is waiting',
    });
    const { row } = await core.db
      .transaction()
      .execute((tx) => insertPayout(tx, core, caller, prepared, { funding: 'balance', startWorkflow: false }));
    expect(renderBalance(await getBalanceView(core, caller)).available).toBe('59.35');

    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: core.config.TASK_QUEUE,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createPayoutActivities(core),
    });
    await worker.runUntil(async () => {
      const start = payoutStart(row);
      const handle = await env.client.workflow.start(payoutWorkflow, {
        workflowId: start.workflowId,
        taskQueue: core.config.TASK_QUEUE,
        args: start.args as Parameters<typeof payoutWorkflow>,
        typedSearchAttributes: typedAttributes(start.searchAttributes),
      });

      // 29 days in: still waiting for the recipient.
      await env.sleep('29 days');
      expect(await handle.query(statusQuery)).toBe('awaiting_claim');
      const waiting = await core.db.selectFrom('payouts').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
      expect(waiting.status).toBe('awaiting_claim');
      expect(waiting.claim_expires_at!.getTime() - waiting.created_at.getTime()).toBeGreaterThan(30 * DAY - 60_000);

      // Awaiting the result lets the server skip to day 30.
      expect(await handle.result()).toEqual({ payoutId: row.id, status: 'failed' });
      const d = await handle.describe();
      expect(d.closeTime!.getTime() - d.startTime.getTime()).toBeGreaterThanOrEqual(30 * DAY);
      expect(d.typedSearchAttributes.get(SA.PayoutStatus)).toBe('failed');
    });

    const failed = await core.db.selectFrom('payouts').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'claim_expired' });
    expect(renderBalance(await getBalanceView(core, caller))).toMatchObject({ available: '100.00', held: '0.00' });
    const events = await core.db.selectFrom('events').select('type').where('object_id', '=', row.id).orderBy('created_at').orderBy('id').execute();
    expect(events.map((e) => e.type)).toEqual(['payout.submitted', 'payout.awaiting_claim', 'payout.failed']);
    const postings = await core.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${row.id}:%`).orderBy('id').execute();
    expect(postings.map((p) => p.key)).toEqual([`payout:${row.id}:hold`, `payout:${row.id}:release`]);
  });
});
