import { type RawBuilder, sql } from 'kysely';
import type { KeywordAttributes } from '../temporal/client';
import { startRecordedWorkflow } from '../temporal/starts';
import type { DbOrTx } from '../db/schema';
import type { Core } from './context';
import { columnsAndValues } from './sql-rows';

/**
 * The outbox of workflow starts. A transaction that accepts work (a payout, a launch) also writes
 * the start it needs; after commit the caller starts it at once, and the worker's relay starts any
 * left behind by a process that died in between. So there is never accepted work without its
 * workflow (docs/architecture.md "Money rules", rule 5), and a start is never lost.
 */
export interface PendingStart {
  workflowId: string;
  workflowType: string;
  args: unknown[];
  searchAttributes: KeywordAttributes;
}

/** Records a start inside the caller's transaction (idempotent on the workflow id). */
export async function enqueueWorkflowStart(tx: DbOrTx, start: PendingStart): Promise<void> {
  await tx
    .insertInto('workflow_starts')
    .values(workflowStartValues(start))
    .onConflict((oc) => oc.column('workflow_id').doNothing())
    .execute();
}

/** The `workflow_starts` row of `start` (for {@link workflowStartInsertSelect}). */
export function workflowStartValues(start: PendingStart) {
  return {
    workflow_id: start.workflowId,
    workflow_type: start.workflowType,
    args: JSON.stringify(start.args) as any,
    search_attributes: JSON.stringify(start.searchAttributes) as any,
  };
}

/**
 * The body of a CTE inserting the start row `values` ({@link workflowStartValues}) `select`ed with
 * `gate` appended (`from balance` in the one-statement payout accept, src/core/payouts/accept.ts),
 * idempotent on the workflow id, returning `workflow_id`.
 */
export function workflowStartInsertSelect(values: ReturnType<typeof workflowStartValues>, gate: RawBuilder<unknown>): RawBuilder<unknown> {
  const { columns, values: vals } = columnsAndValues(values);
  return sql`insert into workflow_starts (${columns}) select ${vals}${gate} on conflict (workflow_id) do nothing returning workflow_id`;
}

/**
 * Records many starts in one statement: `json` is a JSON array of complete `workflow_starts` rows
 * (expanded by jsonb_populate_recordset; Surface B's batch, src/core/claim-flow/batch.ts). A
 * workflow id already recorded is skipped.
 */
export async function insertWorkflowStartRowsJson(tx: DbOrTx, json: string): Promise<void> {
  await sql`insert into workflow_starts select * from jsonb_populate_recordset(null::workflow_starts, ${json}::jsonb) on conflict (workflow_id) do nothing`.execute(tx);
}

/**
 * Starts the recorded workflow now (after commit) and marks it started. Safe to call twice.
 * `recorded`: the start as the caller just wrote it (saves reading it back); without it the row is
 * read, and nothing happens if it is already marked started. Returns whether a start was made
 * (false: no unstarted row). Throws what the Temporal start throws (the row stays for the relay).
 *
 * The marks are written in batches ({@link markStarted}): one UPDATE for the starts of the last
 * few milliseconds instead of one per start. A mark lost with its process costs only a second,
 * idempotent start by the relay's sweep.
 */
export async function flushWorkflowStart(core: Core, workflowId: string, recorded?: PendingStart): Promise<boolean> {
  let start: PendingStart | undefined = recorded;
  if (!start) {
    const row = await core.db
      .selectFrom('workflow_starts')
      .selectAll()
      .where('workflow_id', '=', workflowId)
      .where('started_at', 'is', null)
      .executeTakeFirst();
    if (!row) return false;
    start = { workflowId: row.workflow_id, workflowType: row.workflow_type, args: row.args, searchAttributes: row.search_attributes };
  }
  await startRecordedWorkflow(core.temporal, core.config, start.workflowType, {
    workflowId: start.workflowId,
    args: start.args,
    searchAttributes: start.searchAttributes,
  });
  markStarted(core, workflowId);
  return true;
}

/** A FIFO of starts (index-based: a shift of 10,000 queued starts costs nothing). */
class StartQueue {
  private items: PendingStart[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(start: PendingStart): void {
    this.items.push(start);
  }
  shift(): PendingStart | undefined {
    if (this.head >= this.items.length) return undefined;
    const start = this.items[this.head]!;
    this.items[this.head++] = undefined as never;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return start;
  }
}

/**
 * The starts handed off in one process (one per Core; several in tests). Two lanes: `single`
 * (one start per request, {@link handOffWorkflowStart}) is always served before `bulk` (claimed
 * starts of a batch, {@link handOffWorkflowStarts}), so a payout accepted during a 10,000-entry
 * batch does not wait behind it.
 */
interface Starter {
  single: StartQueue;
  bulk: StartQueue;
  inFlight: number;
  /** Resolvers of {@link drainWorkflowStarts} waiting for both lanes to empty. */
  drained: Array<() => void>;
}
const starters = new WeakMap<Core, Starter>();
/**
 * How many starts one process makes at once (each one gRPC call to the Temporal frontend,
 * multiplexed over the client's one connection), and the most each lane queues; past that a start
 * is left to the relay's sweep (docs/architecture.md "Outboxes"; docs/benchmarks.md "2026-11-27
 * (issue #39)").
 */
export const STARTER_CONCURRENCY = 64;
export const STARTER_QUEUE_MAX = 20_000;
/**
 * Lease of a claimed start. The claimer renews the lease of the starts it still holds every third
 * of it ({@link holdLeases}), so a long queue keeps its claim while the process lives, and the
 * starts of a process that died are swept at most this long after.
 */
export const START_LEASE_MS = 30_000;

/** When a claim taken at `now` runs out (`workflow_starts.claimed_until`). */
export function startLeaseUntil(now: Date): Date {
  return new Date(now.getTime() + START_LEASE_MS);
}

/** Claimed starts this process holds, per Core, and the timer renewing their lease. */
const held = new WeakMap<Core, { ids: Set<string>; timer: ReturnType<typeof setInterval> | null }>();

/**
 * Holds the claims on `ids` until {@link releaseLease}: every START_LEASE_MS / 3, one
 * `UPDATE … SET claimed_until = now + START_LEASE_MS WHERE workflow_id = ANY(…) AND started_at IS
 * NULL` renews all of them. A failed renewal is logged (the claims may then run out: another
 * process makes those starts, and Temporal answers the second one "already started").
 */
function holdLeases(core: Core, ids: string[]): void {
  let h = held.get(core);
  if (!h) {
    h = { ids: new Set(), timer: null };
    held.set(core, h);
  }
  for (const id of ids) h.ids.add(id);
  if (!h.timer && h.ids.size > 0) {
    const state = h;
    state.timer = setInterval(() => {
      const renew = [...state.ids];
      if (renew.length === 0) return;
      void sql`update workflow_starts set claimed_until = ${startLeaseUntil(core.now())}
        where workflow_id = any(${renew}::text[]) and started_at is null`
        .execute(core.db)
        .catch((err: unknown) => core.log.warn({ err, count: renew.length }, 'workflow start claims not renewed'));
    }, START_LEASE_MS / 3);
    state.timer.unref?.();
  }
}

/** Stops renewing the claim on `id` (made, or given back). */
function releaseLease(core: Core, id: string): void {
  const h = held.get(core);
  if (!h) return;
  h.ids.delete(id);
  if (h.ids.size === 0 && h.timer) {
    clearInterval(h.timer);
    h.timer = null;
  }
}

function starterOf(core: Core): Starter {
  let s = starters.get(core);
  if (!s) {
    s = { single: new StartQueue(), bulk: new StartQueue(), inFlight: 0, drained: [] };
    starters.set(core, s);
  }
  return s;
}

/**
 * Hands a start already recorded in the outbox (committed, not claimed) to this process's starter
 * and returns at once: the caller answers its request without waiting for Temporal. The starter
 * makes it within milliseconds (at most {@link STARTER_CONCURRENCY} starts at once, in the order
 * handed off, before any bulk start); if the start fails (Temporal unreachable), or the process
 * dies first, or the lane is full, the relay's sweep ({@link sweepWorkflowStarts}) makes it, so a
 * committed start is never lost. An Update or Signal sent before the start is made finds no
 * workflow: the caller makes the start first ({@link ensureWorkflowStarted}). Never throws.
 */
export function handOffWorkflowStart(core: Core, start: PendingStart): void {
  const s = starterOf(core);
  if (s.single.length >= STARTER_QUEUE_MAX) {
    core.log.warn({ workflowId: start.workflowId }, 'workflow start queue full; the relay makes this start');
    return;
  }
  s.single.push(start);
  pumpStarts(core, s);
}

/**
 * Hands many starts to this process's starter, after the transaction that recorded them committed
 * them claimed (`claimed_until` = {@link startLeaseUntil}(now)), so no other process's sweep makes
 * them while this one holds the claim (renewed until each is made). Returns at once. A start that
 * fails, or does not fit in the lane, has its claim released (`claimed_until` null) so the relay
 * makes it on its next sweep; if the process dies, the relay makes them when the lease runs out.
 * Never throws.
 */
export function handOffWorkflowStarts(core: Core, starts: PendingStart[]): void {
  const s = starterOf(core);
  const room = Math.max(0, STARTER_QUEUE_MAX - s.bulk.length);
  const taken = starts.slice(0, room);
  holdLeases(core, taken.map((x) => x.workflowId));
  for (const start of taken) s.bulk.push(start);
  const overflow = starts.slice(room);
  if (overflow.length > 0) {
    core.log.warn({ count: overflow.length }, 'workflow start queue full; the relay makes these starts');
    for (const start of overflow) releaseClaim(core, start.workflowId);
  }
  pumpStarts(core, s);
}

function pumpStarts(core: Core, s: Starter): void {
  while (s.inFlight < STARTER_CONCURRENCY) {
    let start = s.single.shift();
    const claimed = !start;
    start ??= s.bulk.shift();
    if (!start) break;
    const { workflowId } = start;
    s.inFlight++;
    flushWorkflowStart(core, workflowId, start)
      .catch((err: unknown) => {
        core.log.warn({ err, workflowId }, 'workflow start deferred to the relay');
        if (claimed) releaseClaim(core, workflowId);
      })
      .finally(() => {
        if (claimed) releaseLease(core, workflowId);
        s.inFlight--;
        if (s.inFlight === 0 && s.single.length === 0 && s.bulk.length === 0) for (const resolve of s.drained.splice(0)) resolve();
        pumpStarts(core, s);
      });
  }
}

/**
 * Resolves once every start handed off in this process has been made or given up (left to the
 * relay), or after `timeoutMs`: called before a process or test closes its Temporal connection.
 */
export async function drainWorkflowStarts(core: Core, timeoutMs = 5000): Promise<void> {
  const s = starters.get(core);
  if (!s || (s.inFlight === 0 && s.single.length === 0 && s.bulk.length === 0)) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    new Promise<void>((resolve) => s.drained.push(resolve)),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * Makes the recorded start of `workflowId` if it has not been made (its outbox row is not marked
 * started): for a caller whose Update or Signal found no workflow, since a start handed off by
 * {@link handOffWorkflowStart} may still be queued, or left to the relay. Returns true when a
 * start was made (the caller then sends its message again), false when the row is marked started
 * or absent (the workflow ran and closed, or was never recorded). Throws what the start throws.
 */
export async function ensureWorkflowStarted(core: Core, workflowId: string): Promise<boolean> {
  return flushWorkflowStart(core, workflowId);
}

/** Outbox writes waiting to join one UPDATE, per Core: ids to mark started, ids whose claim is released. */
interface PendingWrites {
  ids: Set<string>;
  timer: ReturnType<typeof setTimeout> | null;
}
const pendingMarks = new WeakMap<Core, PendingWrites>();
const pendingReleases = new WeakMap<Core, PendingWrites>();
/** How long a write waits for others to join its UPDATE, and the most one UPDATE carries. */
const MARK_DELAY_MS = 20;
const MARK_BATCH = 500;

/**
 * Queues `workflowId` in `map`'s batch for `core`; `write` runs one UPDATE for the batch after
 * {@link MARK_DELAY_MS} or at {@link MARK_BATCH} ids. A failed write is logged and left to the relay.
 */
function batchWrite(core: Core, map: WeakMap<Core, PendingWrites>, workflowId: string, write: (ids: string[]) => Promise<unknown>, what: string): void {
  let q = map.get(core);
  if (!q) {
    q = { ids: new Set(), timer: null };
    map.set(core, q);
  }
  q.ids.add(workflowId);
  const flush = () => {
    q.timer = null;
    const ids = [...q.ids];
    q.ids.clear();
    void write(ids).catch((err: unknown) => core.log.warn({ err, count: ids.length }, `${what}; the relay handles them`));
  };
  if (q.ids.size >= MARK_BATCH) {
    if (q.timer) clearTimeout(q.timer);
    flush();
  } else if (!q.timer) {
    q.timer = setTimeout(flush, MARK_DELAY_MS);
    q.timer.unref?.();
  }
}

/** Marks `workflowId` started (`UPDATE … SET started_at … WHERE workflow_id IN (…)`, batched). */
function markStarted(core: Core, workflowId: string): void {
  batchWrite(
    core,
    pendingMarks,
    workflowId,
    (ids) => core.db.updateTable('workflow_starts').set({ started_at: core.now() }).where('workflow_id', 'in', ids).where('started_at', 'is', null).execute(),
    'workflow starts not marked',
  );
}

/** Releases this process's claim on an unstarted `workflowId` (batched), so the relay's next sweep makes it. */
function releaseClaim(core: Core, workflowId: string): void {
  batchWrite(
    core,
    pendingReleases,
    workflowId,
    (ids) => core.db.updateTable('workflow_starts').set({ claimed_until: null }).where('workflow_id', 'in', ids).where('started_at', 'is', null).execute(),
    'workflow start claims not released',
  );
}

/**
 * The relay's sweep: claims up to `limit` recorded starts older than `olderThanMs` that are not
 * marked started and not claimed by a live lease (the process that wrote or claimed them died, or
 * gave them up), in one `UPDATE … WHERE workflow_id IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING`,
 * so two sweeping processes never take the same rows; then makes them, {@link STARTER_CONCURRENCY}
 * at once, and marks them started. Returns how many were claimed. Throws the first start error
 * after the others are made (their claims released), so the relay waits for its next tick.
 */
export async function sweepWorkflowStarts(core: Core, olderThanMs = 2000, limit = 500): Promise<number> {
  const until = startLeaseUntil(core.now());
  const claimed = await sql<{ workflow_id: string; workflow_type: string; args: unknown[]; search_attributes: KeywordAttributes }>`
    update workflow_starts set claimed_until = ${until}
    where workflow_id in (
      select workflow_id from workflow_starts
      where started_at is null
        and (claimed_until is null or claimed_until < now())
        and created_at < now() - ${`${olderThanMs} milliseconds`}::interval
      order by created_at
      limit ${limit}
      for update skip locked)
    returning workflow_id, workflow_type, args, search_attributes`.execute(core.db);
  const starts: PendingStart[] = claimed.rows.map((r) => ({ workflowId: r.workflow_id, workflowType: r.workflow_type, args: r.args, searchAttributes: r.search_attributes }));
  holdLeases(core, starts.map((x) => x.workflowId));
  let next = 0;
  let failure: unknown;
  const lane = async () => {
    while (next < starts.length) {
      const start = starts[next++]!;
      try {
        await flushWorkflowStart(core, start.workflowId, start);
      } catch (err) {
        failure ??= err;
        releaseClaim(core, start.workflowId);
      } finally {
        releaseLease(core, start.workflowId);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(STARTER_CONCURRENCY, starts.length) }, lane));
  if (failure !== undefined) throw failure;
  return starts.length;
}

/**
 * Deletes up to `limit` workflow-start rows started before `cutoff` (data retention,
 * src/core/retention.ts). A row not yet started is the relay's work and is never deleted.
 */
export async function purgeStartedWorkflowStarts(db: DbOrTx, cutoff: Date, limit: number): Promise<number> {
  const r = await db
    .deleteFrom('workflow_starts')
    .where('workflow_id', 'in', (eb) => eb.selectFrom('workflow_starts').select('workflow_id').where('started_at', '<', cutoff).limit(limit))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
