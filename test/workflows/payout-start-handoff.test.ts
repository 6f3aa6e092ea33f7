import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller, Core } from '../../src/core/context';
import { createPayout } from '../../src/core/payouts';
import { approvePayout } from '../../src/core/policies/payout-approvals';
import { advanceTestClock } from '../../src/core/test-clocks';
import { drainWorkflowStarts } from '../../src/core/workflow-starts';
import { createHarness, type Harness } from '../helpers/harness';
import { waitFor } from '../helpers/webhook-receiver';

/**
 * POST /payouts answers once its accept commits; the workflow start recorded in the outbox is made
 * after the answer by the process's starter, or by the relay (src/core/workflow-starts.ts
 * handOffWorkflowStart; docs/benchmarks.md "2026-11-26 (evening)").
 * Here the accepting process's Temporal frontend takes connections and never answers (a TCP server
 * that holds them), so its own starts hang: the payout must still be answered, run to its end by
 * the relay of another process (the harness's worker), and an Update or test-clock advance sent
 * before any start was made must make the start itself instead of being refused.
 */
let h: Harness;
let holder: Server;
const held: Socket[] = [];
let stalled: Core;

beforeAll(async () => {
  h = await createHarness();
  holder = createServer((s) => held.push(s));
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  const address = `127.0.0.1:${(holder.address() as AddressInfo).port}`;
  const temporal = new Client({ connection: Connection.lazy({ address }), namespace: h.core.config.TEMPORAL_NAMESPACE });
  stalled = { ...h.core, temporal };
});
afterAll(async () => {
  await drainWorkflowStarts(stalled, 100);
  for (const s of held) s.destroy();
  holder?.close();
  await h?.close();
});

const statusOf = async (id: string) => (await h.db.selectFrom('payouts').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const startedAt = async (id: string) =>
  (await h.db.selectFrom('workflow_starts').select('started_at').where('workflow_id', '=', id).executeTakeFirstOrThrow()).started_at;

/** A sandbox caller of a funded business, its key with `policy`, and an owner caller of the same business. */
async function callers(policy: Record<string, unknown> | null): Promise<{ payer: Caller; owner: Caller; sandbox: string }> {
  const b = await h.business();
  expect((await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '100' } })).status).toBe(200);
  const ownerKey = await h.db.selectFrom('api_keys').select('id').where('business_id', '=', b.id).where('environment', '=', 'sandbox').executeTakeFirstOrThrow();
  const owner: Caller = { businessId: b.id, environment: 'sandbox', keyId: ownerKey.id, role: 'owner', policy: null };
  if (!policy) return { payer: owner, owner, sandbox: b.sandbox };
  const k = await h.request('POST', '/sandbox/v1/api-keys', { key: b.sandbox, body: { name: 'Ops', policy } });
  expect(k.status).toBe(201);
  return { payer: { ...owner, keyId: k.body.id, role: 'member', policy: k.body.policy }, owner, sandbox: b.sandbox };
}

/** Resolves with `p`, or rejects after `ms` (an answer that waits for the stalled Temporal frontend). */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);
}

describe('the workflow start off the request path', () => {
  it('the accept answers without waiting for Temporal; the relay makes the start and the payout runs to its end', async () => {
    const { payer } = await callers(null);
    const payout = await within(createPayout(stalled, payer, { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@handoff1' }, sourceAmount: '2' }), 3000);
    expect([payout.status, payout.attempts]).toEqual(['submitted', 1]);
    // Committed with its start in the outbox, which no one has made yet.
    expect(await startedAt(payout.id)).toBeNull();
    // The other process's relay makes it (older than 2 s, src/core/relay.ts).
    await waitFor(async () => (await statusOf(payout.id)) === 'succeeded', `${payout.id} succeeded`);
    expect(await startedAt(payout.id)).not.toBeNull();
  });

  it('an approval sent before the start was made makes the start, then approves (not 409)', async () => {
    const { payer, owner } = await callers({ approval_threshold: '1' });
    const payout = await within(createPayout(stalled, payer, { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@handoff2' }, sourceAmount: '5' }), 3000);
    expect(payout.status).toBe('pending');
    expect(await startedAt(payout.id)).toBeNull();
    const approved = await approvePayout(h.core, owner, payout.id);
    expect(approved.status).not.toBe('pending');
    expect(await startedAt(payout.id)).not.toBeNull();
    await waitFor(async () => (await statusOf(payout.id)) === 'succeeded', `${payout.id} succeeded`);
  });

  it('a test-clock advance made before the start reaches the payout: the approval timeout passes and it is canceled', async () => {
    const { payer, owner } = await callers({ approval_threshold: '1' });
    const payout = await within(createPayout(stalled, payer, { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@handoff3' }, sourceAmount: '5' }), 3000);
    expect(await startedAt(payout.id)).toBeNull();
    // The default approval timeout is P7D.
    const advanced = await advanceTestClock(h.core, owner, { by: 'P8D' });
    expect(advanced.workflowsSignaled).toBe(1);
    await waitFor(async () => (await statusOf(payout.id)) === 'canceled', `${payout.id} canceled`);
  });
});
