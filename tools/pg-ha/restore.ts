/**
 * Point-in-time recovery from a base backup and the WAL archive (docs/operations.md "Restoring from
 * a base backup to a point in time"): the steps of that runbook as code, for the test that proves
 * them (test/e2e/pg-ha.test.ts) and for an operator rehearsing a restore on one machine.
 *
 * - {@link takeBaseBackup}: `pg_basebackup` of a running primary, WAL left to the archive (`-X none`).
 * - {@link archiveCurrentWal}: closes the current WAL segment (`pg_switch_wal()`) and waits until
 *   `archive_command` has copied it, so everything committed so far is in the archive.
 * - {@link restorePointInTime}: copies the backup into a new data directory, writes the recovery
 *   settings (`restore_command`, `recovery_target_time`, `recovery_target_action = 'promote'`,
 *   `recovery.signal`) and starts a plain `postgres` on a free loopback port; resolves once recovery
 *   has ended and the copy is writable.
 *
 * As root, every server-side step runs as the `postgres` user (`runuser`), like tools/stack/postgres.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/temporal/dev-server';
import { findPgBin } from '../stack/postgres';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `runuser -u postgres --` when this process is root (PostgreSQL refuses to run as root), else nothing. */
function asPostgres(): string[] {
  if (process.getuid?.() !== 0) return [];
  if (spawnSync('id', ['-u', 'postgres']).status !== 0) execFileSync('useradd', ['--system', '--no-create-home', 'postgres']);
  return ['runuser', '-u', 'postgres', '--'];
}

/** Gives `path` to the server user when this process is root (a file this process created). */
function giveToServer(path: string): void {
  if (process.getuid?.() === 0) chownSync(path, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), 0);
}

/** A temporary directory the server user owns. */
function serverDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  giveToServer(dir);
  return dir;
}

function run(cmd: string[], what: string): string {
  const full = [...asPostgres(), ...cmd];
  const r = spawnSync(full[0]!, full.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** A base backup on disk. */
export interface BaseBackup {
  /** The backup's data directory (what {@link restorePointInTime} copies). */
  dir: string;
  /** Removes the backup. */
  remove(): void;
}

/**
 * Takes a base backup of the server at `host:port` (user `postgres`, a replication connection) with
 * `pg_basebackup --checkpoint=fast -X none`: the backup holds no WAL, so a restore needs the WAL
 * archive from the backup's start onwards (pg_basebackup returns once the server has archived the
 * backup's last segment). Throws with pg_basebackup's output when it fails.
 */
export function takeBaseBackup(source: { host: string; port: number; user?: string }): BaseBackup {
  const root = serverDir('payouts-pg-basebackup-');
  const dir = join(root, 'data');
  run(
    [join(findPgBin(), 'pg_basebackup'), '-h', source.host, '-p', String(source.port), '-U', source.user ?? 'postgres', '-D', dir, '--checkpoint=fast', '-X', 'none', '--no-password'],
    'pg_basebackup',
  );
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * Ends the current WAL segment on the primary at `url` (`pg_switch_wal()`) and waits until its file
 * is in `walArchive`: every commit acknowledged before the call is then archived. Returns the
 * segment's file name. Throws after `timeoutMs`.
 */
export async function archiveCurrentWal(url: string, walArchive: string, timeoutMs = 30_000): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let segment: string;
  try {
    // pg_walfile_name of the switch's end position names the segment it closed (the position is its
    // last byte + 1, which pg_walfile_name maps to that same segment when it ends on a boundary).
    const { rows } = await client.query<{ segment: string }>('select pg_walfile_name(pg_switch_wal()) as segment');
    segment = rows[0]!.segment;
  } finally {
    await client.end().catch(() => {});
  }
  const until = Date.now() + timeoutMs;
  while (!existsSync(join(walArchive, segment))) {
    if (Date.now() > until) throw new Error(`WAL segment ${segment} not archived to ${walArchive} after ${timeoutMs} ms`);
    await sleep(100);
  }
  return segment;
}

/** Options of {@link restorePointInTime}. */
export interface RestoreOptions {
  /** A base backup's data directory ({@link takeBaseBackup}); left unchanged. */
  baseBackupDir: string;
  /** The WAL archive (`archive_command`'s target): read with `restore_command = 'cp <walArchive>/%f %p'`. */
  walArchive: string;
  /**
   * The instant to recover to (`recovery_target_time`): transactions that committed at or before it
   * are replayed, later ones are not. A `Date`, or PostgreSQL's timestamptz text (`select now()`).
   */
  targetTime: Date | string;
  /** Milliseconds to wait for recovery to end (default 120 s). */
  timeoutMs?: number;
}

/** A restored copy, promoted and writable. */
export interface RestoredDatabase {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  port: number;
  dataDir: string;
  /** Stops the server (immediate) and removes its directory. Idempotent. */
  stop(): void;
}

/**
 * Restores `baseBackupDir` to `targetTime` on a new, separate server (the runbook's steps):
 * 1. copies the backup into a new data directory (mode 0700, owned by the server user);
 * 2. appends to its `postgresql.auto.conf` the recovery settings (`restore_command`,
 *    `recovery_target_time`, `recovery_target_action = 'promote'`) and what keeps the copy apart
 *    from the cluster it came from (its own port and socket directory, `archive_mode = off` so it
 *    never writes into the cluster's archive, `synchronous_standby_names = ''` since it has no
 *    standby), and creates `recovery.signal`;
 * 3. starts `postgres` (`pg_ctl start`) and waits until `pg_is_in_recovery()` is false: the target
 *    was reached and the copy promoted onto a new timeline.
 * Throws with the server's log when recovery fails (for instance a target after the archive's last
 * commit: "recovery ended before configured recovery target was reached").
 */
export async function restorePointInTime(opts: RestoreOptions): Promise<RestoredDatabase> {
  const bin = findPgBin();
  const root = serverDir('payouts-pg-restore-');
  const dataDir = join(root, 'data');
  const logFile = join(root, 'postgres.log');
  const port = await freePort();
  const target = typeof opts.targetTime === 'string' ? opts.targetTime : opts.targetTime.toISOString();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    const full = [...asPostgres(), join(bin, 'pg_ctl'), '-D', dataDir, '-m', 'immediate', 'stop'];
    spawnSync(full[0]!, full.slice(1), { stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', stop);
  const serverLog = () => {
    try {
      return readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n');
    } catch {
      return '(no log)';
    }
  };
  try {
    run(['cp', '-a', opts.baseBackupDir, dataDir], 'copying the base backup');
    run(['chmod', '0700', dataDir], 'chmod of the data directory');
    // A backup taken from a running server has no postmaster.pid; one copied by hand may.
    rmSync(join(dataDir, 'postmaster.pid'), { force: true });
    const q = (v: string) => `'${v.replaceAll("'", "''")}'`;
    appendFileSync(
      join(dataDir, 'postgresql.auto.conf'),
      [
        '',
        '# Point-in-time recovery (tools/pg-ha/restore.ts; docs/operations.md "Restoring from a base backup to a point in time")',
        `restore_command = ${q(`cp ${opts.walArchive}/%f %p`)}`,
        `recovery_target_time = ${q(target)}`,
        "recovery_target_action = 'promote'",
        // Apart from the source cluster: its own address, no archiving into the cluster's archive,
        // no synchronous standby to wait for, logs to one file.
        `port = ${port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = ${q(root)}`,
        'archive_mode = off',
        "synchronous_standby_names = ''",
        'logging_collector = off',
        '',
      ].join('\n'),
    );
    writeFileSync(join(dataDir, 'recovery.signal'), '');
    giveToServer(join(dataDir, 'recovery.signal'));
    const timeoutMs = opts.timeoutMs ?? 120_000;
    const ctl = [...asPostgres(), join(bin, 'pg_ctl'), '-D', dataDir, '-l', logFile, '-w', '-t', String(Math.ceil(timeoutMs / 1000)), 'start'];
    const started = spawnSync(ctl[0]!, ctl.slice(1), { encoding: 'utf8' });
    if (started.status !== 0) throw new Error(`the restored server did not start: ${started.stdout}${started.stderr}\n${serverLog()}`);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const until = Date.now() + timeoutMs;
    for (;;) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
      try {
        await client.connect();
        const { rows } = await client.query<{ recovering: boolean }>('select pg_is_in_recovery() as recovering');
        if (!rows[0]!.recovering) break;
      } catch {
        // starting, or shutting down after a failed recovery (the deadline reports the log)
      } finally {
        await client.end().catch(() => {});
      }
      if (Date.now() > until) throw new Error(`recovery did not end within ${timeoutMs} ms:\n${serverLog()}`);
      await sleep(200);
    }
    return { url, port, dataDir, stop };
  } catch (err) {
    stop();
    throw err;
  }
}
