import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One writer for an embedded PGlite data directory (docs/security.md "One writer for the embedded
 * database"). PGlite is PostgreSQL in one process's memory with no shared-memory locking across
 * processes; two processes opening the same directory corrupt it. So every process that opens the
 * PGlite data of a `DATA_DIR` first takes `DATA_DIR/pglite.lock`:
 *
 * - The lock file is created atomically (`O_CREAT|O_EXCL`) and holds the owner's pid, its start
 *   time (Linux: /proc/<pid>/stat, so a reused pid is not mistaken for the owner), its command and
 *   when it took the lock.
 * - A lock whose owner is gone (no such pid, or a pid now belonging to another process) is stale and
 *   taken over.
 * - A live owner means refusal: {@link PgliteLockedError}, whose message says who holds it and what
 *   to do. The second process never opens the directory.
 * - The lock is released when the owner exits (an `exit` hook) or calls the returned `release`.
 *   Taking it again in the owning process is a no-op.
 */

/** What the lock file records about its owner. */
export interface LockOwner {
  pid: number;
  /** Process start time in clock ticks since boot (Linux), or null where /proc is not available. */
  start: string | null;
  /** The owner's command line, for the refusal message. */
  command: string;
  /** ISO 8601 UTC: when the lock was taken. */
  since: string;
}

/** The data directory is in use by another live process. */
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

/** Path of the lock file of a DATA_DIR. */
export const lockPath = (dataDir: string) => join(dataDir, 'pglite.lock');

/** Start time of a process (field 22 of /proc/<pid>/stat), or null when unknown. */
function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command (field 2) is in parentheses and may contain spaces: count fields after the last ')'
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the process recorded as `owner` is still running (and is the same process). */
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

/**
 * Takes the lock of `dataDir` for this process (see the module comment). Returns `release`.
 * Throws {@link PgliteLockedError} when another live process holds it.
 */
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
    // Stale: remove it, but only if it is still the stale file we judged (another process taking
    // it over at the same time may have replaced it already).
    const current = readOwner(path);
    if (current?.pid === owner?.pid && current?.since === owner?.since) {
      try {
        unlinkSync(path);
      } catch {
        // someone else removed it first: try again
      }
    }
  }
  const owner = readOwner(path);
  throw owner ? new PgliteLockedError(dataDir, owner) : new Error(`Could not take the lock ${path}`);
}
