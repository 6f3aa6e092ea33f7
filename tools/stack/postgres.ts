/**
 * A throwaway PostgreSQL cluster for `npm run chaos` and `npm run bench` (tools/stack): initdb and
 * pg_ctl in a temporary directory, exactly as .ci/run does (as root, the server runs as the
 * `postgres` user through `runuser`). Loopback only, a free port, fsync off (a test cluster).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/temporal/dev-server';

/** A running throwaway cluster. */
export interface Postgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  port: number;
  /** Pid of the postmaster (its backends are its children). */
  pid: number;
  dir: string;
  /** Fast shutdown (`pg_ctl -m immediate stop`) and removal of the directory. Idempotent. */
  stop(): void;
  /**
   * Stops the server in immediate mode (what a crash does: no checkpoint, crash recovery at the
   * next start) and starts it again on the same port and data directory; resolves once it accepts
   * connections. Clients see their connections cut meanwhile.
   */
  restart(): Promise<void>;
}

/** The newest `/usr/lib/postgresql/<v>/bin` that has initdb, or PGBIN from the environment. */
export function findPgBin(): string {
  if (process.env.PGBIN && existsSync(join(process.env.PGBIN, 'initdb'))) return process.env.PGBIN;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  const v = versions.at(-1);
  if (!v) throw new Error('PostgreSQL server binaries not found (apt-get install postgresql, or set PGBIN)');
  return join(base, v, 'bin');
}

/**
 * Creates and starts a cluster. `statements: true` preloads pg_stat_statements (the bench counts
 * SQL statements with it); `crashSafe: true` keeps every acknowledged commit across restart(). Throws with the server log when it does not start.
 */
export async function startPostgres(opts: { statements?: boolean; maxConnections?: number; crashSafe?: boolean } = {}): Promise<Postgres> {
  const bin = findPgBin();
  const dir = mkdtempSync(join(tmpdir(), 'payouts-stack-pg-'));
  const asRoot = process.getuid?.() === 0;
  const prefix: string[] = [];
  if (asRoot) {
    if (spawnSync('id', ['-u', 'postgres']).status !== 0) execFileSync('useradd', ['--system', '--no-create-home', 'postgres']);
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), 0);
    prefix.push('runuser', '-u', 'postgres', '--');
  }
  const run = (cmd: string, args: string[]) => {
    const full = [...prefix, join(bin, cmd), ...args];
    const r = spawnSync(full[0]!, full.slice(1), { encoding: 'utf8' });
    if (r.status !== 0) {
      let log = '';
      try {
        log = readFileSync(join(dir, 'pg.log'), 'utf8');
      } catch {
        // no log yet
      }
      throw new Error(`${cmd} failed (${r.status}): ${r.stdout}${r.stderr}${log}`);
    }
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    `-c max_connections=${opts.maxConnections ?? 300}`,
    '-c fsync=off',
    // synchronous_commit=off acknowledges a commit before its WAL leaves PostgreSQL's memory: a
    // server stopped in immediate mode (restart()) then loses commits its clients were told about,
    // which no production configuration allows. crashSafe keeps it on (fsync stays off: the OS
    // does not crash here, and what reached it survives a process crash).
    `-c synchronous_commit=${opts.crashSafe ? 'on' : 'off'}`,
    '-c full_page_writes=off',
    ...(opts.statements ? ['-c shared_preload_libraries=pg_stat_statements', '-c pg_stat_statements.track=all'] : []),
  ];
  run('pg_ctl', ['-D', data, '-l', join(dir, 'pg.log'), '-w', '-o', settings.join(' '), 'start']);
  const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    const full = [...prefix, join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop'];
    spawnSync(full[0]!, full.slice(1), { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  const restart = async () => {
    run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    run('pg_ctl', ['-D', data, '-l', join(dir, 'pg.log'), '-w', '-o', settings.join(' '), 'start']);
  };
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, port, pid, dir, stop, restart };
}
