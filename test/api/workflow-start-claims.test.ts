/**
 * The workflow-start outbox's claims (src/core/workflow-starts.ts, docs/architecture.md
 * "Outboxes"): a sweep claims the rows it makes, so two sweeping processes never make the same
 * start; a row under a live lease (its claimer is making it) is left alone and swept once the lease
 * runs out (the claimer died); a bulk start that fails gives its claim back at once; a single
 * start handed off during a bulk hand-off is not queued behind it. Starts go to the real Temporal
 * dev server (no worker polls their queue).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/core/context';
import {
  drainWorkflowStarts,
  handOffWorkflowStart,
  handOffWorkflowStarts,
  type PendingStart,
  STARTER_CONCURRENCY,
  startLeaseUntil,
  sweepWorkflowStarts,
} from '../../src/core/workflow-starts';
import { createHarness, type Harness } from '../helpers/harness';
import { waitFor } from '../helpers/webhook-receiver';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ worker: false });
});
afterAll(async () => h?.close());

let seq = 0;
const run = Date.now().toString(36);
/** `n` starts of a workflow type no worker runs (started on the generic queue). */
const makeStarts = (n: number): PendingStart[] =>
  Array.from({ length: n }, () => ({ workflowId: `claim-test-${run}-${seq++}`, workflowType: 'claimTestWorkflow', args: [], searchAttributes: {} }));

/** Records starts as committed `ageMs` ago, claimed until `claimedUntil` (null: unclaimed). */
async function record(starts: PendingStart[], ageMs: number, claimedUntil: Date | null): Promise<void> {
  const createdAt = new Date(Date.now() - ageMs);
  await h.db
    .insertInto('workflow_starts')
    .values(starts.map((s) => ({ workflow_id: s.workflowId, workflow_type: s.workflowType, args: JSON.stringify(s.args) as any, search_attributes: '{}' as any, created_at: createdAt, claimed_until: claimedUntil })))
    .execute();
}

/** A Core whose Temporal client appends the workflow id of every start it sends to `calls`. */
function counting(calls: string[]): Core {
  const t = h.core.temporal;
  const bind = (target: object, prop: string | symbol) => {
    const v = Reflect.get(target, prop, target);
    return typeof v === 'function' ? v.bind(target) : v;
  };
  const workflow = new Proxy(t.workflow, {
    get: (target, prop) =>
      prop === 'start'
        ? (type: string, opts: { workflowId: string }) => {
            calls.push(opts.workflowId);
            return target.start(type, opts as any);
          }
        : bind(target, prop),
  });
  const temporal = new Proxy(t, { get: (target, prop) => (prop === 'workflow' ? workflow : bind(target, prop)) });
  return { ...h.core, temporal };
}

const rowsOf = (starts: PendingStart[]) =>
  h.db.selectFrom('workflow_starts').select(['workflow_id', 'started_at', 'claimed_until']).where('workflow_id', 'in', starts.map((s) => s.workflowId)).execute();

describe('workflow-start claims', () => {
  it('two sweeps at once make each left-behind start exactly once and mark it started', async () => {
    const starts = makeStarts(40);
    await record(starts, 5000, null);
    const calls: string[] = [];
    const [a, b] = await Promise.all([sweepWorkflowStarts(counting(calls), 2000, 500), sweepWorkflowStarts(counting(calls), 2000, 500)]);
    expect(a + b).toBe(40);
    expect(calls.filter((id) => id.startsWith(`claim-test-${run}-`))).toHaveLength(40);
    expect(new Set(calls).size).toBe(calls.length);
    await waitFor(async () => (await rowsOf(starts)).every((r) => r.started_at !== null), 'all marked started');
    const described = await h.core.temporal.workflow.getHandle(starts[0]!.workflowId).describe();
    expect(described.type).toBe('claimTestWorkflow');
  });

  it('a start under a live lease is left alone; once the lease runs out (its claimer died) the sweep makes it', async () => {
    const starts = makeStarts(5);
    await record(starts, 5000, startLeaseUntil(new Date()));
    const calls: string[] = [];
    expect(await sweepWorkflowStarts(counting(calls), 2000, 500)).toBe(0);
    expect(calls).toHaveLength(0);
    await sql`update workflow_starts set claimed_until = now() - interval '1 second' where workflow_id in (${sql.join(starts.map((s) => s.workflowId))})`.execute(h.db);
    expect(await sweepWorkflowStarts(counting(calls), 2000, 500)).toBe(5);
    expect(calls.sort()).toEqual(starts.map((s) => s.workflowId).sort());
  });

  it('a bulk hand-off makes every start; one Temporal refuses gets its claim released for the relay', async () => {
    const good = makeStarts(20);
    // Temporal refuses a workflow id over its length limit (INVALID_ARGUMENT).
    const refused: PendingStart = { ...makeStarts(1)[0]!, workflowId: `claim-test-${run}-${'x'.repeat(1200)}` };
    const all = [...good, refused];
    await record(all, 0, startLeaseUntil(new Date()));
    handOffWorkflowStarts(h.core, all);
    await drainWorkflowStarts(h.core, 20_000);
    await waitFor(async () => {
      const rows = await rowsOf(all);
      const bad = rows.find((r) => r.workflow_id === refused.workflowId)!;
      return rows.filter((r) => r.started_at !== null).length === 20 && bad.started_at === null && bad.claimed_until === null;
    }, 'good starts marked, the refused one released');
  });

  it('a single start handed off behind a bulk hand-off is made before the rest of the bulk', async () => {
    const bulk = makeStarts(4 * STARTER_CONCURRENCY);
    const [single] = makeStarts(1);
    await record(bulk, 0, startLeaseUntil(new Date()));
    await record([single!], 0, null);
    const calls: string[] = [];
    const core = counting(calls);
    handOffWorkflowStarts(core, bulk);
    handOffWorkflowStart(core, single!);
    await drainWorkflowStarts(core, 30_000);
    expect(calls).toHaveLength(bulk.length + 1);
    expect(calls.indexOf(single!.workflowId)).toBeLessThanOrEqual(STARTER_CONCURRENCY);
  });
});
