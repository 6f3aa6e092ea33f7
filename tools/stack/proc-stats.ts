/**
 * CPU time of processes from Linux /proc/<pid>/stat (fields 14-17: utime, stime, cutime, cstime,
 * in clock ticks of 1/100 s), for the bench's "CPU ms per payout per process".
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // sysconf(_SC_CLK_TCK) is 100 on Linux

function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU milliseconds used so far by `pid` (user + system), plus its reaped children's when
 * `withChildren` (cutime + cstime: PostgreSQL backends that have exited). 0 when it is gone.
 */
export function cpuMs(pid: number, withChildren = false): number {
  const f = statFields(pid);
  if (!f) return 0;
  const ticks = Number(f[11]) + Number(f[12]) + (withChildren ? Number(f[13]) + Number(f[14]) : 0);
  return ticks * TICK_MS;
}

/** Pids whose parent is `ppid` (live ones). */
export function childPids(ppid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(Number(entry));
    if (f && Number(f[1]) === ppid) out.push(Number(entry));
  }
  return out;
}

/**
 * CPU milliseconds of a process tree one level deep: the process, its live children, and the
 * children it has reaped (the PostgreSQL postmaster and its backends; a worker and its bundler).
 * A child that exits between two readings moves from "live" to "reaped": the sum stays monotonic.
 */
export function treeCpuMs(pid: number): number {
  return cpuMs(pid, true) + childPids(pid).reduce((sum, c) => sum + cpuMs(c, true), 0);
}

/** Resident set size of `pid` in bytes (/proc/<pid>/status VmRSS); 0 when it is gone. */
export function rssBytes(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** RSS in bytes of a process and its live children (one level, as {@link treeCpuMs}). */
export function treeRssBytes(pid: number): number {
  return rssBytes(pid) + childPids(pid).reduce((sum, c) => sum + rssBytes(c), 0);
}
