/**
 * Surface B's delivery schedule on Temporal's time-skipping test server (spec "Surface B delivery":
 * attempt 1 at once, 2 after 5 minutes, 3 after 30 minutes, 4 after 2 hours, 5 after 12 hours),
 * against a receiver that keeps failing: exactly five attempts, no sixth, the delivery `failed`.
 * The real webhookDeliveryWorkflow and deliverWebhook activity run; the attempt times are the
 * test server's (skipped) clock, read as each attempt starts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Context } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, Worker } from '@temporalio/worker';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createWebhookActivities } from '../../activities/webhooks';
import { loadConfig } from '../../src/config';
import type { Caller, Core } from '../../src/core/context';
import { emitLegacyEvent } from '../helpers/legacy-events';
import { createWebhookEndpoint, dispatchWebhookEvents } from '../../src/core/webhooks';
import { migrate, openDb } from '../../src/db/connection';
import { resolveTestServer } from '../../src/temporal/binaries';
import { SEARCH_ATTRIBUTE_NAMES } from '../../src/temporal/search-attributes';
import { sandboxAdapters } from '../../src/sandbox/adapters';
import { createScreeningServices } from '../../src/core/screening/service';

const MIN = 60_000;
let env: TestWorkflowEnvironment;
let core: Core;
let server: Server;
let url: string;
let hits = 0;
const caller: Caller = { businessId: 'biz_schedule', environment: 'sandbox', keyId: 'key_x', role: 'owner', policy: null };

beforeAll(async () => {
  try {
    Runtime.install({ logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as never });
  } catch {
    // already installed in this process
  }
  env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: resolveTestServer() } } });
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(SEARCH_ATTRIBUTE_NAMES.map((n) => [n, 2 /* KEYWORD */])),
  });
  const db = await openDb({ memory: true });
  await migrate(db);
  core = {
    db,
    temporal: env.client,
    config: loadConfig({ TASK_QUEUE: 'surface-b-schedule', LOG_LEVEL: 'silent', PORT: '3999' }),
    log: pino({ level: 'silent' }),
    now: () => new Date(),
    sandbox: sandboxAdapters(),
    screening: createScreeningServices(db, {}),
  };
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      res.writeHead(503).end('down');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}, 180_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await env?.teardown();
  await core?.db.destroy();
});

describe('Surface B webhook delivery schedule (time-skipping)', () => {
  it('attempts at 0, +5 min, +30 min, +2 h, +12 h against a failing receiver, then gives up: no sixth attempt', async () => {
    await createWebhookEndpoint(core, caller, { url, events: ['disbursement.*'], secret: 'schedule-secret-0123456789' }, 'B');
    await core.db.transaction().execute((tx) =>
      emitLegacyEvent(tx, {
        businessId: caller.businessId,
        environment: caller.environment,
        type: 'payout.submitted',
        objectType: 'payout',
        objectId: 'po_schedule',
        data: { id: 'po_schedule', channel: 'claim_link', source_amount: '5.00', recipient: { type: 'phone', number: '+525512345678' }, claim: null },
        dedupeKey: 'test:po_schedule:submitted',
      }),
    );

    // The real activity, recording the server's (skipped) clock as each attempt starts.
    const real = createWebhookActivities(core);
    const scheduledAt: number[] = [];
    const activities = {
      ...real,
      async deliverWebhook(deliveryId: string) {
        const info = Context.current().info;
        scheduledAt.push(await env.currentTimeMs());
        expect(info.attempt).toBe(scheduledAt.length);
        return real.deliverWebhook(deliveryId);
      },
    };
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: core.config.TASK_QUEUE,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities,
    });
    await worker.runUntil(async () => {
      expect(await dispatchWebhookEvents(core)).toBe(1);
      const delivery = await core.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
      const handle = env.client.workflow.getHandle(delivery.id);
      const result = await handle.result();
      expect(result).toMatchObject({ deliveryId: delivery.id, status: 'failed' });
      // Had there been a sixth attempt it would come 12 h + later at the earliest: skip a day.
      await env.sleep('1 day');
    });

    expect(scheduledAt).toHaveLength(5);
    expect(hits).toBe(5);
    const gaps = scheduledAt.slice(1).map((t, i) => t - scheduledAt[i]);
    const expected = [5 * MIN, 30 * MIN, 120 * MIN, 720 * MIN];
    gaps.forEach((g, i) => {
      expect(g).toBeGreaterThanOrEqual(expected[i]);
      expect(g).toBeLessThan(expected[i] + MIN);
    });
    const delivery = await core.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 5, last_status_code: 503 });
    const attempts = await core.db.selectFrom('webhook_attempts').select(['number', 'status_code']).where('delivery_id', '=', delivery.id).orderBy('number').execute();
    expect(attempts.map((a) => a.number)).toEqual([1, 2, 3, 4, 5]);
  });
});
