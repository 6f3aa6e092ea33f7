import { readFileSync, writeFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { KyselyPlugin, OperationNode, QueryId } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Db } from '../../src/db/schema';
import { createWorker, type PaymentsWorker } from '../../src/temporal/worker';
import { createHarness, type Harness } from '../helpers/harness';
import { drainWorkflowStarts } from '../../src/core/workflow-starts';

/**
 * What one sandbox payout costs the worker and Temporal (issue #23; docs/benchmarks.md "Temporal
 * work of a sandbox payout"): its history (events, workflow tasks, timers, local-activity and
 * patch markers, search-attribute upserts) and the SQL statements the worker runs over its whole
 * life. Counts, not timings: exact on a loaded machine.
 *
 * The worker here is this file's own, over a database handle that counts every statement it runs
 * (a Kysely plugin) and every transaction it opens (each is a BEGIN and a COMMIT round trip more);
 * the API answering the POST uses the harness's handle, so the request path is not counted.
 *
 * `RECORD_PAYOUT_HISTORIES=<date> npx vitest run test/workflows/payout-cost.test.ts` also writes
 * the four histories to test/fixtures/histories/payout-<date>-<name>.json (replay fixtures).
 */

/** A history event as fetched (protobuf objects) or as stored in a fixture (their JSON form). */
type HistoryEvent = temporal.api.history.v1.IHistoryEvent | Record<string, any>;

/** The Temporal work of one run, counted from its history. */
interface HistoryShape {
  events: number;
  workflowTasks: number;
  timers: number;
  /** Local activities run, in order, by activity type (one `core_local_activity` marker each). */
  localActivities: string[];
  /** Patch markers (`core_patch`): the patch ids recorded. */
  patches: string[];
  upserts: number;
}

/** The JSON in a marker's payload `field` (bytes when fetched, base64 in a fixture). */
function markerPayload(e: HistoryEvent, field: string): any {
  const data = (e as any).markerRecordedEventAttributes?.details?.[field]?.payloads?.[0]?.data;
  if (data === undefined) return undefined;
  const text = typeof data === 'string' ? Buffer.from(data, 'base64').toString('utf8') : Buffer.from(data).toString('utf8');
  return JSON.parse(text);
}

/** Counts {@link HistoryShape} from a run's events. */
function shapeOf(events: HistoryEvent[]): HistoryShape {
  const markers = events.filter((e) => (e as any).markerRecordedEventAttributes);
  return {
    events: events.length,
    workflowTasks: events.filter((e) => (e as any).workflowTaskCompletedEventAttributes).length,
    timers: events.filter((e) => (e as any).timerStartedEventAttributes).length,
    localActivities: markers
      .filter((e) => (e as any).markerRecordedEventAttributes.markerName === 'core_local_activity')
      .map((e) => markerPayload(e, 'data')?.activity_type as string),
    patches: markers.filter((e) => (e as any).markerRecordedEventAttributes.markerName === 'core_patch').map((e) => markerPayload(e, 'patch-data')?.id as string),
    upserts: events.filter((e) => (e as any).upsertWorkflowSearchAttributesEventAttributes).length,
  };
}

/** The first table an operation node names (a label for a counted statement). */
function firstTable(node: unknown): string | undefined {
  if (!node || typeof node !== 'object') return undefined;
  const n = node as Record<string, any>;
  if (n.kind === 'TableNode') return n.table?.identifier?.name;
  for (const v of Object.values(n)) {
    const found = Array.isArray(v) ? v.map(firstTable).find(Boolean) : firstTable(v);
    if (found) return found;
  }
  return undefined;
}

/** A label for a statement: its kind and first table (a raw statement: its first words). */
function label(node: OperationNode): string {
  const n = node as any;
  if (n.kind === 'RawNode') {
    const text = (n.sqlFragments as string[]).join('?').replace(/\s+/g, ' ').trim();
    return `raw ${text.slice(0, 40)}${firstTable(n) ? ` (${firstTable(n)})` : ''}`;
  }
  return `${n.kind.replace(/QueryNode$/, '').toLowerCase()} ${firstTable(n) ?? ''}`.trim();
}

/** A handle on `db` that counts the statements run through it (labels in order) and the transactions opened. */
function countingDb(db: Db): { db: Db; statements: string[]; transactions: () => number; reset: () => void } {
  const statements: string[] = [];
  const labels = new WeakMap<QueryId, string>();
  let transactions = 0;
  const plugin: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      labels.set(queryId, label(node));
      return node;
    },
    transformResult: async ({ result, queryId }) => {
      statements.push(labels.get(queryId) ?? '?');
      return result;
    },
  };
  const counted = db.withPlugin(plugin);
  const transaction = counted.transaction.bind(counted);
  counted.transaction = () => {
    transactions++;
    return transaction();
  };
  return {
    db: counted,
    statements,
    transactions: () => transactions,
    reset: () => {
      statements.length = 0;
      transactions = 0;
    },
  };
}

let h: Harness;
let counter: ReturnType<typeof countingDb>;
let worker: PaymentsWorker;
let workerRun: Promise<void>;
let connection: NativeConnection;

beforeAll(async () => {
  h = await createHarness({ worker: false });
  counter = countingDb(h.db);
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  ({ worker } = await createWorker({ ...h.core, db: counter.db }, { connection, workflowBundle: { codePath: inject('workflowBundlePath') } }));
  workerRun = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await workerRun?.catch(() => {});
  await connection?.close();
  await h?.close();
});

/** The four sandbox payouts of docs/benchmarks.md (service_user_usdc, 1 USDC), by fixture name. */
const PAYOUTS = {
  succeeded: null,
  refunded: 'sandbox:refunded_by_provider',
  'timeout-once': 'sandbox:provider_timeout_once',
  'invalid-destination': 'sandbox:invalid_destination',
} as const;

/** Runs one sandbox payout to its end; returns its final status, history shape, history and the worker's statements. */
async function runPayout(key: string, reference: string | null) {
  counter.reset();
  const body = { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: '1', ...(reference ? { reference } : {}) };
  const r = await h.request('POST', '/sandbox/v1/payouts', { key, body });
  expect(r.status).toBe(201);
  // The POST answered before its workflow start was made (src/core/workflow-starts.ts handOffWorkflowStart).
  await drainWorkflowStarts(h.core);
  const handle = h.core.temporal.workflow.getHandle(r.body.id);
  const result = await handle.result();
  const history = await handle.fetchHistory();
  return { id: r.body.id as string, status: result.status, shape: shapeOf(history.events ?? []), history, statements: [...counter.statements], transactions: counter.transactions() };
}

/** The fixture recorded from the workflow before this change (2026-11-25, commit 0ca5654). */
const before = (name: string): HistoryShape =>
  shapeOf(JSON.parse(readFileSync(new URL(`../fixtures/histories/payout-2026-11-25-${name}.json`, import.meta.url), 'utf8')).events);

describe('the cost of a sandbox payout (issue #23)', () => {
  it('before: the move to delivering and the first rail attempt were two local activities (the recorded histories)', () => {
    expect(before('succeeded')).toEqual({
      events: 15,
      workflowTasks: 2,
      timers: 1,
      localActivities: ['payoutTransition', 'payoutRailAttempt', 'payoutTransition'],
      patches: [],
      upserts: 2,
    });
    expect(before('invalid-destination').localActivities).toEqual(['payoutTransition', 'payoutRailAttempt', 'payoutTransition']);
  });

  it('the four sandbox payouts: one local activity fewer each, and the worker statements of a settled payout', async () => {
    const b = await h.business();
    expect((await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '100' } })).status).toBe(200);
    const runs: Record<string, Awaited<ReturnType<typeof runPayout>>> = {};
    for (const [name, reference] of Object.entries(PAYOUTS)) runs[name] = await runPayout(b.sandbox, reference);
    for (const [name, run] of Object.entries(runs)) {
      console.log(name, run.status, JSON.stringify(run.shape), `statements ${run.statements.length}, transactions ${run.transactions}`, run.statements);
    }
    const date = process.env.RECORD_PAYOUT_HISTORIES;
    if (date) {
      for (const [name, run] of Object.entries(runs)) {
        const json = temporal.api.history.v1.History.fromObject(run.history as any).toJSON();
        const path = new URL(`../fixtures/histories/payout-${date}-${name}.json`, import.meta.url);
        writeFileSync(path, `${JSON.stringify(json, null, 1)}\n`);
        // What was written replays on the code that wrote it.
        const replayed = temporal.api.history.v1.History.fromObject(json);
        await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, replayed, run.id)).resolves.toBeUndefined();
      }
    }

    expect(Object.fromEntries(Object.entries(runs).map(([name, run]) => [name, run.status]))).toEqual({
      succeeded: 'succeeded',
      refunded: 'refunded',
      'timeout-once': 'succeeded',
      'invalid-destination': 'failed',
    });
    // The history of each: the move to delivering and attempt 1 are one local activity, with no
    // patch marker (nor its TemporalChangeVersion upsert): one event fewer than before each. Since
    // issue #52 the checks phase adds two local activities (two marker events) before the rail.
    const move = 'payoutTransition'; // -> delivering with deliverAttempt 1
    const checks = ['payoutScreen', 'payoutVerifyPayee'];
    expect(runs.succeeded!.shape).toEqual({ events: 16, workflowTasks: 2, timers: 1, localActivities: [...checks, move, 'payoutTransition'], patches: [], upserts: 2 });
    expect(runs.refunded!.shape).toEqual({
      events: 23,
      workflowTasks: 3,
      timers: 2,
      localActivities: [...checks, move, 'payoutTransition', 'payoutTransition'],
      patches: [],
      upserts: 3,
    });
    expect(runs['timeout-once']!.shape).toEqual({
      events: 23,
      workflowTasks: 3,
      timers: 2,
      localActivities: [...checks, move, 'payoutAttemptResult', 'payoutRailAttempt', 'payoutTransition'],
      patches: [],
      upserts: 2,
    });
    expect(runs['invalid-destination']!.shape).toEqual({ events: 10, workflowTasks: 1, timers: 0, localActivities: [...checks, move, 'payoutTransition'], patches: [], upserts: 1 });
    // The move's recorded result carries the rail's answer (what a replay reads instead of a second activity).
    const moveResult = (run: (typeof runs)[string]) =>
      markerPayload((run.history.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')[checks.length]!, 'result');
    expect(moveResult(runs.succeeded!)).toMatchObject({ status: 'delivering', attempt: { ok: true, providerReference: expect.stringMatching(/^sbx_/), arrivalMs: 50 } });
    expect(moveResult(runs['invalid-destination']!)).toMatchObject({ status: 'delivering', attempt: { ok: false, errorCode: 'invalid_destination', retryable: false } });

    // A settled payout costs the worker 4 statements and one transaction for its delivery (before:
    // 7 and two, 'select payouts' + the transition's statement twice, the attempt's read, start and
    // reference), after 3 for its checks: its case (none), its row to screen (the screening itself
    // is in memory; its record is written by the screening service), its row for the payee check
    // (skipped off sepa_eur).
    expect(runs.succeeded!.statements).toEqual([
      'select screening_cases',
      'select payouts',
      'select payouts',
      expect.stringMatching(/^raw with moved as \( update payouts/), // -> delivering + attempt 1 started
      'update payout_attempts', // the attempt's provider reference
      'select payouts', // -> succeeded: the row lock ...
      expect.stringMatching(/^raw with \? select payout\.\*/), // ... and its one statement (projection, attempt, event, settle)
    ]);
    expect(runs.succeeded!.transactions).toBe(1);
    expect([runs.refunded!.statements.length, runs.refunded!.transactions]).toEqual([9, 2]);
    expect([runs['invalid-destination']!.statements.length, runs['invalid-destination']!.transactions]).toEqual([7, 1]);
  });
});
