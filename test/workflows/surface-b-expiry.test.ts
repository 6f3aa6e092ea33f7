/**
 * Spec "Disbursement status (Surface B)": pending -> expired after 30 days unclaimed, funds
 * returned, event disbursement.expired. On Temporal's time-skipping server with the real payout and
 * webhook workflows and activities: the Surface B disbursement (a core claim-link payout) waits its
 * 30 days, expires, the balance is whole again, and the signed disbursement.expired delivery
 * verifies with @octokit/webhooks-methods.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@octokit/webhooks-methods';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, Worker } from '@temporalio/worker';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createActivities } from '../../activities';
import { loadConfig } from '../../src/config';
import { fundSandbox, getBalanceView } from '../../src/core/balance';
import { renderBalance } from '../../src/wire/surface-a/balance';
import { createBusiness } from '../../src/core/businesses';
import { claimDisbursementView, createClaimDisbursement, getClaimDisbursementRow } from '../../src/core/claim-flow';
import type { Caller, Core } from '../../src/core/context';
import { createWebhookEndpoint, dispatchWebhookEvents } from '../../src/core/webhooks';
import { migrate, openDb } from '../../src/db/connection';
import { resolveTestServer } from '../../src/temporal/binaries';
import { SEARCH_ATTRIBUTE_NAMES } from '../../src/temporal/search-attributes';
import { sandboxAdapters } from '../../src/sandbox/adapters';
import { createScreeningServices } from '../../src/core/screening/service';

const DAY = 24 * 3600 * 1000;
const SECRET = 'expiry-secret-0123456789';
let env: TestWorkflowEnvironment;
let core: Core;
let caller: Caller;
let server: Server;
let url: string;
const received: { headers: IncomingHttpHeaders; raw: string }[] = [];

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
  const config = loadConfig({ TASK_QUEUE: 'surface-b-expiry', SANDBOX_ARRIVAL: 'PT0.05S', LOG_LEVEL: 'silent', PORT: '3999' });
  core = { db, temporal: env.client, config, log: pino({ level: 'silent' }), now: () => new Date(), sandbox: sandboxAdapters(), screening: createScreeningServices(db, config) };
  const biz = await createBusiness(db, { name: 'Expiry', verified: true });
  const key = await db.selectFrom('api_keys').select('id').where('business_id', '=', biz.businessId).where('environment', '=', 'sandbox').executeTakeFirstOrThrow();
  caller = { businessId: biz.businessId, environment: 'sandbox', keyId: key.id, role: 'owner', policy: null };
  await fundSandbox(core, caller, '100');
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
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

/** Dispatches outbox events to deliveries and waits for every delivery workflow to finish. */
async function deliverAll(): Promise<void> {
  while ((await dispatchWebhookEvents(core)) > 0) {
    // drained one batch
  }
  const deliveries = await core.db.selectFrom('webhook_deliveries').select('id').execute();
  for (const d of deliveries) await env.client.workflow.getHandle(d.id).result();
}

describe('an unclaimed Surface B disbursement (time-skipping)', () => {
  it('is expired after 30 days, the funds come back, and disbursement.expired is delivered signed', async () => {
    await createWebhookEndpoint(core, caller, { url, events: ['disbursement.*'], secret: SECRET }, 'B');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: core.config.TASK_QUEUE,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createActivities(core),
    });
    let id = '';
    await worker.runUntil(async () => {
      const row = await createClaimDisbursement(core, caller, { recipientPhone: '+525512345678', amountUsd: '40.00', reference: 'never-claimed' });
      id = row.id;
      expect(renderBalance(await getBalanceView(core, caller)).available).toBe('59.35');
      await env.sleep('29 days');
      expect(claimDisbursementView(await getClaimDisbursementRow(core, caller, id), '').status).toBe('pending');
      // Awaiting the payout workflow lets the server skip to day 30.
      const handle = env.client.workflow.getHandle(id);
      await handle.result();
      const d = await handle.describe();
      expect(d.closeTime!.getTime() - d.startTime.getTime()).toBeGreaterThanOrEqual(30 * DAY);
      await deliverAll();
    });

    const view = claimDisbursementView(await getClaimDisbursementRow(core, caller, id), '');
    expect(view).toMatchObject({ status: 'expired', failureCode: 'claim_expired' });
    expect(renderBalance(await getBalanceView(core, caller))).toMatchObject({ available: '100.00', held: '0.00' });

    const events = received.map((r) => ({ ...r, body: JSON.parse(r.raw) as { type: string; data: Record<string, unknown> } }));
    // One delivery workflow per event: they may arrive in either order.
    expect(events.map((e) => e.body.type).sort()).toEqual(['disbursement.created', 'disbursement.expired']);
    const expired = events.find((e) => e.body.type === 'disbursement.expired')!;
    expect(expired.body.data).toEqual({
      id,
      status: 'expired',
      recipientPhone: '+525512345678',
      amountUsd: '40.00',
      reference: 'never-claimed',
      payoutMethod: null,
      deliveredAt: null,
      recipientEmail: null,
    });
    expect(await verify(SECRET, expired.raw, String(expired.headers['x-service-signature']))).toBe(true);
  });
});
