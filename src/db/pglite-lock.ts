import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One writer per embedded PGlite data directory (docs/security.md "One writer for the embedded
 * database"): two processes opening one directory corrupt it. `DATA_DIR/pglite.lock` is created
 * atomically; a lock whose owner (pid and start time, so a reused pid is not mistaken) is gone is
 * stale and taken over; a live owner means {@link PgliteLockedError}.
 */

export interface LockOwner {
  pid: number;
  /** Clock ticks since boot (Linux), or null without /proc. */
  start: string | null;
  command: string;
  since: string;
}

export class PgliteLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner,
  ) {
    super(
      `The PGlite data directory ${dataDir} is in use by process ${owner.pid} (${owner.command}, since ${owner.since}). ` +
        'PGlite allows one process per directory: stop that process first, or use another DATA_DIR, ' +
        'or run against PostgreSQL with DATABASE_URL (any number of processes).',
    );
    this.name = 'PgliteLockedError';
  }
}

export const lockPath = (dataDir: string) => join(dataDir, 'pglite.lock');

function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command (field 2) is in parentheses and may contain spaces: count fields after the last ')'
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

export function ownerAlive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false; // ESRCH: gone
  }
  if (owner.start !== null) {
    const now = processStart(owner.pid);
    if (now !== null && now !== owner.start) return false; // the pid was reused
  }
  return true;
}

function readOwner(path: string): LockOwner | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
    return Number.isInteger(parsed.pid) ? parsed : null;
  } catch {
    return null;
  }
}

const held = new Map<string, () => void>();

/** Takes the lock of `dataDir`; returns `release`. Throws {@link PgliteLockedError} when a live process holds it. */
export function acquirePgliteLock(dataDir: string): () => void {
  const path = lockPath(dataDir);
  const existing = held.get(path);
  if (existing) return existing;
  mkdirSync(dataDir, { recursive: true });
  const me: LockOwner = {
    pid: process.pid,
    start: processStart(process.pid),
    command: process.argv.slice(1).join(' ').slice(0, 200) || 'node',
    since: new Date().toISOString(),
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      const release = () => {
        if (!held.has(path)) return;
        held.delete(path);
        process.removeListener('exit', release);
        if (readOwner(path)?.pid === process.pid) {
          try {
            unlinkSync(path);
      } catch {
        // already gone
          }
        }
      };
      held.set(path, release);
      process.on('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let owner = readOwner(path);
    if (owner && ownerAlive(owner)) throw new PgliteLockedError(dataDir, owner);
    // Unreadable: an owner that died mid-write, or one writing right now; give it a moment.
    if (!owner && attempt === 0) {
      const until = Date.now() + 200;
      while (Date.now() < until) {
        /* brief wait for a concurrent writer */
      }
      owner = readOwner(path);
      if (owner && ownerAlive(owner)) throw new PgliteLockedError(dataDir, owner);
    }
    // Stale: remove it only if it is still the file we judged (a concurrent taker may have replaced it).
    const current = readOwner(path);
    if (current?.pid === owner?.pid && current?.since === owner?.since) {
      try {
        unlinkSync(path);
      } catch {
        // removed by another process first: try again
      }
    }
  }
  const owner = readOwner(path);
  throw owner ? new PgliteLockedError(dataDir, owner) : new Error(`Could not take the lock ${path}`);
}
