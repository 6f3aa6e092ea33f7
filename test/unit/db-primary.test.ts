import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/connection';
import { parseDatabaseUrl } from '../../src/db/database-url';
import type { Db } from '../../src/db/schema';
import { openStandbyReads, standbysInSync, StandbyReadsUnavailableError } from '../../src/db/standby-reads';
import { DatabaseUnavailableError, isDatabaseUnavailable } from '../../src/db/errors';
import { backoffMs, connectClient, failoverSettingsOf, FollowingPool, hostOrder, lastWritableHost, noteWritable, passes, primaryEvents, type PrimaryChange, satisfies } from '../../src/db/primary';

const primary = { readOnly: false, inRecovery: false };
const standby = { readOnly: true, inRecovery: true };
const readOnlyPrimary = { readOnly: true, inRecovery: false };

describe('host selection (src/db/primary.ts)', () => {
  it('target_session_attrs keeps libpq\'s meaning', () => {
    expect([primary, standby, readOnlyPrimary].map((k) => satisfies('read-write', k))).toEqual([true, false, false]);
    expect([primary, standby, readOnlyPrimary].map((k) => satisfies('primary', k))).toEqual([true, false, true]);
    expect([primary, standby, readOnlyPrimary].map((k) => satisfies('read-only', k))).toEqual([false, true, true]);
    expect([primary, standby].map((k) => satisfies('standby', k))).toEqual([false, true]);
    expect([primary, standby].map((k) => satisfies('any', k))).toEqual([true, true]);
    // prefer-standby: a standby on the first pass, anything on the second.
    expect(passes('prefer-standby')).toEqual([false, true]);
    expect([satisfies('prefer-standby', primary), satisfies('prefer-standby', standby), satisfies('prefer-standby', primary, true)]).toEqual([false, true, true]);
    expect(passes('read-write')).toEqual([false]);
  });

  it('tries the host last seen writable first, then the URL\'s order (for the kinds that want the primary)', () => {
    expect(hostOrder(3, 'read-write', null)).toEqual([0, 1, 2]);
    expect(hostOrder(3, 'read-write', 2)).toEqual([2, 0, 1]);
    expect(hostOrder(3, 'primary', 1)).toEqual([1, 0, 2]);
    expect(hostOrder(3, 'standby', 1)).toEqual([0, 1, 2]);
  });

  it('backs off 100 ms doubling to at most 1 s', () => {
    expect([0, 1, 2, 3, 4, 10].map(backoffMs)).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('counts a change of the writable host, not its first sighting', () => {
    const url = parseDatabaseUrl('postgres://u@unit-a:1,unit-b:2/d?target_session_attrs=read-write');
    const seen: PrimaryChange[] = [];
    const on = (c: PrimaryChange) => seen.push(c);
    primaryEvents.on('primary-change', on);
    try {
      noteWritable(url, 0);
      noteWritable(url, 0);
      expect(seen).toEqual([]);
      noteWritable(url, 1);
      expect(seen.map((c) => [c.from.host, c.to.host])).toEqual([['unit-a', 'unit-b']]);
      expect(lastWritableHost(url)).toBe(1);
    } finally {
      primaryEvents.off('primary-change', on);
    }
  });

  it('the settings are ISO 8601 durations', () => {
    expect(failoverSettingsOf({ DATABASE_CONNECT_TIMEOUT: 'PT2S', DATABASE_FAILOVER_WAIT: 'PT30S' })).toEqual({ connectTimeoutMs: 2000, failoverWaitMs: 30_000 });
  });

  it('when no host accepts, acquiring retries until the failover wait and fails with DatabaseUnavailableError (nothing was sent)', async () => {
    // Port 1 on loopback refuses at once.
    const url = parseDatabaseUrl('postgres://u@127.0.0.1:1,127.0.0.1:1/d?target_session_attrs=read-write');
    const settings = { connectTimeoutMs: 500, failoverWaitMs: 700 };
    const t0 = Date.now();
    const err = await connectClient(url, {}, settings).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(650);
    expect(String((err as Error).message)).toMatch(/127\.0\.0\.1:1, 127\.0\.0\.1:1 .*within \d+ ms/);
    expect(isDatabaseUnavailable(err)).toBe(true);

    const pool = new FollowingPool(url, {}, settings);
    await expect(pool.connect()).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await pool.end();
  });

  it('classifies a lost connection and a demoted primary as "unavailable", a constraint violation not', () => {
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '08006' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('read only'), { code: '25006' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('dup'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
  });

  it('standby reads need a multi-host URL, and a server with no standby is never "in sync"', async () => {
    await expect(openStandbyReads({} as Db, 'postgres://u@h:5432/d', { maxLagMs: 1000 })).rejects.toBeInstanceOf(StandbyReadsUnavailableError);
    const db = await openDb({ memory: true });
    try {
      expect(await standbysInSync(db, 1000)).toBe(false);
    } finally {
      await db.destroy();
    }
  });
});
