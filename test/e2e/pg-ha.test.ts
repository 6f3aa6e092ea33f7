/**
 * The high-availability PostgreSQL's two promises (issue #58; docs/operations.md "High-availability
 * PostgreSQL"), on a real pg_auto_failover cluster (tools/pg-ha/cluster.ts: a monitor, a primary
 * and a synchronous standby on this machine):
 *
 * 1. Synchronous commit: while the standby is healthy, a commit the primary acknowledged is already
 *    on the standby. While the standby is unreachable (its whole machine frozen with SIGSTOP, so the
 *    monitor learns of it only through its health checks), a commit is NOT acknowledged; it is
 *    acknowledged only once the monitor has assigned the primary `wait_primary`, pg_auto_failover's
 *    documented degradation (the keeper empties `synchronous_standby_names`, so writes go on without
 *    a standby; alerted on as `db_synchronous_standbys < 1`). When the standby returns, the cluster
 *    goes back to primary + secondary and commits are synchronous again.
 * 2. Point-in-time recovery: a base backup plus the WAL archive restores, on a separate server, the
 *    service's ledger as it was at an instant T (tools/pg-ha/restore.ts, the runbook "Restoring from
 *    a base backup to a point in time"): every posting committed before T with its amount, none
 *    after, and the restored ledger sums to zero with its balances equal to the postings' replay.
 *
 * Skipped (with the reason) where pg_auto_failover is not installed, unless REQUIRE_PG_AUTO_FAILOVER=1.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBusiness } from '../../src/core/businesses';
import { type Account, post } from '../../src/core/ledger';
import { migrate, openDb } from '../../src/db/connection';
import type { Db } from '../../src/db/schema';
import { pgHaMissing, startPgHa, type PgHaCluster, type PgHaNode } from '../../tools/pg-ha/cluster';
import { replayLedger } from '../../tools/chaos/ledger-replay';
import { archiveCurrentWal, restorePointInTime, takeBaseBackup, type BaseBackup, type RestoredDatabase } from '../../tools/pg-ha/restore';
import { waitFor } from '../helpers/wait-for';

const missing = pgHaMissing();
const SKIP = missing !== null && process.env.REQUIRE_PG_AUTO_FAILOVER !== '1';
if (SKIP) console.warn(`test/e2e/pg-ha.test.ts: skipped, ${missing}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nodeUrl = (node: PgHaNode) => `postgres://postgres@127.0.0.1:${node.port}/postgres`;

/**
 * Freezes a data node's whole machine with SIGSTOP: its keeper's process group (the keeper and the
 * postmaster) and the postmaster's children (walreceiver, startup, backends: each is its own
 * process-group leader, PostgreSQL's `setsid()` for its children). Returns the thaw (SIGCONT).
 */
function freeze(node: PgHaNode): () => void {
  const pgid = node.pid()!;
  process.kill(-pgid, 'SIGSTOP');
  const postmaster = Number(readFileSync(join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = spawnSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number);
  for (const pid of children) process.kill(pid, 'SIGSTOP');
  let thawed = false;
  return () => {
    if (thawed) return;
    thawed = true;
    for (const pid of children) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // gone
      }
    }
    try {
      process.kill(-pgid, 'SIGCONT');
    } catch {
      // gone
    }
  };
}

async function connect(node: PgHaNode): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: nodeUrl(node) });
  // A node the keeper restarts (a standby catching up) ends its sessions: the test reconnects.
  client.on('error', () => {});
  await client.connect();
  return client;
}

async function show(client: pg.Client, setting: string): Promise<string> {
  const { rows } = await client.query(`select current_setting($1) as v`, [setting]);
  return String(rows[0].v);
}

/**
 * Commits `id` into `ha_probe` on the primary and returns the primary's WAL insert position taken
 * inside the transaction just before COMMIT: the commit record lies beyond it.
 */
async function commitProbe(primary: pg.Client, id: number): Promise<string> {
  await primary.query('begin');
  await primary.query('insert into ha_probe (id) values ($1)', [id]);
  const { rows } = await primary.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn');
  await primary.query('commit');
  return rows[0]!.lsn;
}

/** Whether the standby has received and flushed WAL beyond `lsn` (`pg_last_wal_receive_lsn()`). */
async function standbyFlushedPast(standby: pg.Client, lsn: string): Promise<boolean> {
  const { rows } = await standby.query<{ past: boolean }>('select pg_last_wal_receive_lsn() > $1::pg_lsn as past', [lsn]);
  return rows[0]!.past;
}

/** The chaos audit's ledger check over one database: the ledgers not summing to zero and the balances off their replay (none: []). */
async function ledgerFailures(db: Db): Promise<string[]> {
  const replay = await replayLedger(db);
  return [...replay.unbalanced, ...replay.balancesOff.map((o) => o.detail)];
}

describe.skipIf(SKIP)('high-availability PostgreSQL (pg_auto_failover)', () => {
  let cluster: PgHaCluster;
  let thaw: (() => void) | null = null;

  beforeAll(async () => {
    cluster = await startPgHa();
  }, 120_000);

  afterAll(() => {
    thaw?.();
    cluster?.stop();
  });

  it(
    'a commit is acknowledged only once the standby has it; with the standby unreachable, only after the monitor degrades the primary to wait_primary; sync is restored when it returns',
    async () => {
      const { primary, standby } = await cluster.waitForSteadyState();
      const p = await connect(primary);
      const s = await connect(standby);
      try {
        // The configuration pg_auto_failover set: a commit waits for the standby's flush.
        expect(await show(p, 'synchronous_commit')).toBe('on');
        expect(await show(p, 'synchronous_standby_names')).toMatch(/^ANY 1 \(pgautofailover_standby_\d+\)$/);
        await p.query('create table ha_probe (id int primary key, at timestamptz not null default clock_timestamp())');

        // 1. Standby healthy: right after the acknowledgement, the standby has flushed the commit's WAL
        //    and (once replayed, which synchronous_commit = on does not wait for) serves the row.
        const lsn1 = await commitProbe(p, 1);
        expect(await standbyFlushedPast(s, lsn1)).toBe(true);
        await waitFor(async () => (await s.query('select 1 from ha_probe where id = 1')).rowCount === 1, 'row 1 replayed on the standby', 5_000);

        // 2. The standby's machine freezes (keeper, postmaster, walreceiver and every other child).
        thaw = freeze(standby);
        const stoppedAt = Date.now();
        let ackedAt: number | null = null;
        const pending = p.query('insert into ha_probe (id) values (2)').then(() => {
          ackedAt = Date.now();
        });
        // While the monitor still assigns the primary `primary` (synchronous), the commit is not
        // acknowledged: each round reads the acknowledgement first and the monitor's assignment
        // second, so "still `primary`" implies the earlier reading was taken before any degradation.
        let pendingWhilePrimaryMs = 0;
        for (;;) {
          const acked = ackedAt;
          const assigned = (await cluster.states()).find((x) => x.name === primary.name)!.assigned;
          if (assigned !== 'primary') break;
          expect(acked).toBeNull();
          pendingWhilePrimaryMs = Date.now() - stoppedAt;
          if (Date.now() - stoppedAt > 30_000) throw new Error('the monitor never noticed the frozen standby');
          await sleep(100);
        }
        // Not acknowledged for a few seconds (the monitor's failure detection, MONITOR_SETTINGS: ~4 s here).
        expect(pendingWhilePrimaryMs).toBeGreaterThanOrEqual(2_500);

        // 3. The monitor has marked the standby unhealthy and assigned the primary `wait_primary`;
        //    its keeper empties synchronous_standby_names and the waiting commit is released.
        await pending;
        expect(ackedAt! - stoppedAt).toBeGreaterThanOrEqual(pendingWhilePrimaryMs);
        const atAck = (await cluster.states()).find((x) => x.name === primary.name)!;
        expect(atAck.assigned).toBe('wait_primary');
        await waitFor(async () => (await cluster.states()).find((x) => x.name === primary.name)?.reported === 'wait_primary', 'primary reported wait_primary', 20_000);
        expect(await show(p, 'synchronous_standby_names')).toBe('');
        // Writes go on meanwhile, acknowledged by the primary alone (the documented degradation).
        const t = Date.now();
        await commitProbe(p, 3);
        expect(Date.now() - t).toBeLessThan(2_000);

        // 4. The standby comes back: it catches up, the cluster returns to primary + secondary with
        //    the same primary, and commits are synchronous again.
        thaw();
        const steady = await cluster.waitForSteadyState(60_000);
        expect(steady.primary.name).toBe(primary.name);
        await waitFor(async () => (await show(p, 'synchronous_standby_names')) !== '', 'synchronous_standby_names set again', 20_000);
        expect(await show(p, 'synchronous_standby_names')).toMatch(/^ANY 1 \(pgautofailover_standby_\d+\)$/);
        const s2 = await connect(standby);
        try {
          const lsn4 = await commitProbe(p, 4);
          expect(await standbyFlushedPast(s2, lsn4)).toBe(true);
          await waitFor(async () => (await s2.query('select count(*)::int as n from ha_probe').then((r) => r.rows[0].n)) === 4, 'rows 1-4 on the standby', 5_000);
        } finally {
          await s2.end().catch(() => {});
        }
      } finally {
        await p.end().catch(() => {});
        await s.end().catch(() => {});
      }
    },
    90_000,
  );

  it(
    'a base backup and the WAL archive restore the ledger as it was at an instant T: postings before T with their amounts, none after, summing to zero',
    async () => {
      const primary = (await cluster.primary())!;
      expect(primary).not.toBeNull();
      let backup: BaseBackup | null = null;
      let restored: RestoredDatabase | null = null;
      let restoredDb: Db | null = null;
      // The primary's own address: the base backup and the WAL archive come from it.
      const db = await openDb({ url: nodeUrl(primary) }, { poolSize: 2 });
      try {
        backup = takeBaseBackup({ host: '127.0.0.1', port: primary.port });
        await migrate(db);
        const { businessId } = await createBusiness(db, { name: 'Point in time' });
        type Move = { key: string; from: Account; to: Account; amount: bigint };
        const postAll = async (moves: Move[]) => {
          for (const m of moves) await db.transaction().execute((tx) => post(tx, { businessId, environment: 'sandbox', ...m }));
        };
        const beforeT: Move[] = [
          { key: 'fund:pitr-1', from: 'external', to: 'available', amount: 100_000_000n },
          { key: 'fund:pitr-2', from: 'external', to: 'available', amount: 25_000_000n },
          { key: 'payout:po_pitr_a:hold', from: 'available', to: 'held', amount: 30_000_000n },
        ];
        const afterT: Move[] = [
          { key: 'fund:pitr-3', from: 'external', to: 'available', amount: 7_000_000n },
          { key: 'payout:po_pitr_b:hold', from: 'available', to: 'held', amount: 5_000_000n },
        ];
        await postAll(beforeT);
        // T: after the acknowledged commits before it (their commit records carry earlier times).
        const { rows } = await sql<{ t: string }>`select clock_timestamp()::text as t`.execute(db);
        const T = rows[0]!.t;
        await sleep(50);
        await postAll(afterT);
        const live = await db.selectFrom('ledger_postings').select('key').where('business_id', '=', businessId).execute();
        expect(live).toHaveLength(beforeT.length + afterT.length);
        await archiveCurrentWal(nodeUrl(primary), cluster.walArchive);

        restored = await restorePointInTime({ baseBackupDir: backup.dir, walArchive: cluster.walArchive, targetTime: T });
        restoredDb = await openDb({ url: restored.url }, { poolSize: 2 });
        const back = await restoredDb
          .selectFrom('ledger_postings')
          .select(['key', 'debit_account', 'credit_account', 'amount'])
          .where('business_id', '=', businessId)
          .orderBy('key')
          .execute();
        expect(back.map((r) => ({ key: r.key, from: r.debit_account, to: r.credit_account, amount: BigInt(r.amount) }))).toEqual(
          [...beforeT].sort((a, b) => (a.key < b.key ? -1 : 1)),
        );
        const balance = await restoredDb.selectFrom('balances').select(['available', 'held']).where('business_id', '=', businessId).where('environment', '=', 'sandbox').executeTakeFirstOrThrow();
        expect({ available: BigInt(balance.available), held: BigInt(balance.held) }).toEqual({ available: 95_000_000n, held: 30_000_000n });
        expect(await ledgerFailures(restoredDb)).toEqual([]);
        // The restored copy is promoted: writable, on a new timeline.
        await restoredDb.transaction().execute((tx) => post(tx, { businessId, environment: 'sandbox', key: 'fund:pitr-after-restore', from: 'external', to: 'available', amount: 1n }));
      } finally {
        await restoredDb?.destroy();
        restored?.stop();
        backup?.remove();
        await db.destroy();
      }
    },
    90_000,
  );
});
