import { type Insertable, type RawBuilder, sql } from 'kysely';
import type { KeywordAttributes } from '../temporal/client';
import { startRecordedWorkflow } from '../temporal/starts';
import type { DbOrTx } from '../db/schema';
import type { WorkflowStartsTable } from '../db/tables/platform';
import type { Core } from './context';
import { columnsAndValues } from './sql-rows';

/** The outbox of workflow starts (docs/architecture.md "Money rules", rule 5): written with the work, started after commit. */
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

/** The `workflow_starts` row of `start`. */
export function workflowStartValues(start: PendingStart): Insertable<WorkflowStartsTable> {
  return {
    workflow_id: start.workflowId,
    workflow_type: start.workflowType,
    args: JSON.stringify(start.args),
    search_attributes: JSON.stringify(start.searchAttributes),
  };
}

/** A CTE body inserting the start row `values` selected with `gate` appended; returns `workflow_id`. */
export function workflowStartInsertSelect(values: Insertable<WorkflowStartsTable>, gate: RawBuilder<unknown>): RawBuilder<unknown> {
  const { columns, values: vals } = columnsAndValues(values);
  return sql`insert into workflow_starts (${columns}) select ${vals}${gate} on conflict (workflow_id) do nothing returning workflow_id`;
}

/** Records many starts in one statement, at `at`, claimed until `claimedUntil`; known ids are skipped. */
export async function insertWorkflowStarts(tx: DbOrTx, starts: readonly PendingStart[], at: Date, claimedUntil: Date | null): Promise<void> {
  const rows = starts.map((s) => ({ ...workflowStartValues(s), args: s.args, search_attributes: s.searchAttributes, created_at: at, started_at: null, claimed_until: claimedUntil }));
  const json = JSON.stringify(rows);
  await sql`insert into workflow_starts select * from jsonb_populate_recordset(null::workflow_starts, ${json}::jsonb) on conflict (workflow_id) do nothing`.execute(tx);
}

/**
 * Starts the recorded workflow now and marks it started (batched); false when no unstarted row. Throws what
 * the Temporal start throws (the row stays for the relay).
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

/** The starts handed off in one process; the `single` lane is always served before `bulk`. */
interface Starter {
  single: StartQueue;
  bulk: StartQueue;
  inFlight: number;
  drained: Array<() => void>;
}
const starters = new WeakMap<Core, Starter>();
/** Starts made at once per process, and the most each lane queues (past that, the relay's sweep makes it). */
export const STARTER_CONCURRENCY = 128;
export const STARTER_QUEUE_MAX = 20_000;
/** Lease of a claimed start, renewed every third of it while the process holds the start. */
export const START_LEASE_MS = 30_000;

/** When a claim taken at `now` runs out (`workflow_starts.claimed_until`). */
export function startLeaseUntil(now: Date): Date {
  return new Date(now.getTime() + START_LEASE_MS);
}

const held = new WeakMap<Core, { ids: Set<string>; timer: ReturnType<typeof setInterval> | null }>();

/** Renews the claims on `ids` every START_LEASE_MS / 3 until {@link releaseLease}; a failed renewal is logged. */
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

/** Hands a committed, unclaimed start to this process's starter; the relay's sweep makes it if this fails. Never throws. */
export function handOffWorkflowStart(core: Core, start: PendingStart): void {
  const s = starterOf(core);
  if (s.single.length >= STARTER_QUEUE_MAX) {
    core.log.warn({ workflowId: start.workflowId }, 'workflow start queue full; the relay makes this start');
    return;
  }
  s.single.push(start);
  pumpStarts(core, s);
}

/** Hands claimed starts to the bulk lane; a start that fails or does not fit has its claim released. Never throws. */
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

/** Resolves once every handed-off start is made or given up, or after `timeoutMs`. */
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

/** Makes the recorded start if not yet made (an Update or Signal found no workflow); true when a start was made. */
export async function ensureWorkflowStarted(core: Core, workflowId: string): Promise<boolean> {
  return flushWorkflowStart(core, workflowId);
}

interface PendingWrites {
  ids: Set<string>;
  timer: ReturnType<typeof setTimeout> | null;
}
const pendingMarks = new WeakMap<Core, PendingWrites>();
const pendingReleases = new WeakMap<Core, PendingWrites>();
const MARK_DELAY_MS = 20;
const MARK_BATCH = 500;

/** Queues `workflowId` for one batched UPDATE (after MARK_DELAY_MS or at MARK_BATCH ids); failures are logged. */
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

function markStarted(core: Core, workflowId: string): void {
  batchWrite(
    core,
    pendingMarks,
    workflowId,
    (ids) => core.db.updateTable('workflow_starts').set({ started_at: core.now() }).where('workflow_id', 'in', ids).where('started_at', 'is', null).execute(),
    'workflow starts not marked',
  );
}

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
 * The relay's sweep: claims up to `limit` unstarted, unleased starts older than `olderThanMs` (SKIP LOCKED),
 * makes them, returns how many. Throws the first start error after the rest.
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

/** Deletes up to `limit` rows started before `cutoff`; an unstarted row is never deleted. */
export async function purgeStartedWorkflowStarts(db: DbOrTx, cutoff: Date, limit: number): Promise<number> {
  const r = await db
    .deleteFrom('workflow_starts')
    .where('workflow_id', 'in', (eb) => eb.selectFrom('workflow_starts').select('workflow_id').where('started_at', '<', cutoff).limit(limit))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
