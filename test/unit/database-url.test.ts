import { describe, expect, it } from 'vitest';
import { DatabaseUrlError, parseDatabaseUrl, withDatabase } from '../../src/db/database-url';
import { loadConfig } from '../../src/config';

describe('DATABASE_URL (src/db/database-url.ts)', () => {
  it('reads what `pg_autoctl show uri` prints: every host in order, target_session_attrs, one URL per host for node-postgres', () => {
    const u = parseDatabaseUrl('postgres://postgres@127.0.0.1:6001,127.0.0.1:6002/postgres?target_session_attrs=read-write&sslmode=disable');
    expect(u.hosts).toEqual([
      { host: '127.0.0.1', port: 6001 },
      { host: '127.0.0.1', port: 6002 },
    ]);
    expect(u.targetSessionAttrs).toBe('read-write');
    expect(u.needsSelection).toBe(true);
    expect(u.hostUrls).toEqual(['postgres://postgres@127.0.0.1:6001/postgres?sslmode=disable', 'postgres://postgres@127.0.0.1:6002/postgres?sslmode=disable']);
  });

  it('keeps user, password and database; a host without a port is 5432; IPv6 in brackets', () => {
    const u = parseDatabaseUrl('postgresql://app:s%40cret@db-a,[::1]:5433,db-c:6000/payouts?target_session_attrs=primary');
    expect(u.hosts).toEqual([
      { host: 'db-a', port: 5432 },
      { host: '[::1]', port: 5433 },
      { host: 'db-c', port: 6000 },
    ]);
    expect(u.hostUrls[0]).toBe('postgresql://app:s%40cret@db-a:5432/payouts');
    expect(u.hostUrls[1]).toBe('postgresql://app:s%40cret@[::1]:5433/payouts');
    expect(u.targetSessionAttrs).toBe('primary');
  });

  it.each(['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'])('accepts target_session_attrs=%s', (tsa) => {
    expect(parseDatabaseUrl(`postgres://u@a:1,b:2/d?target_session_attrs=${tsa}`).targetSessionAttrs).toBe(tsa);
  });

  it('several hosts without target_session_attrs is libpq\'s `any`: the first that accepts', () => {
    const u = parseDatabaseUrl('postgres://u@a:1,b:2/d');
    expect(u.targetSessionAttrs).toBe('any');
    expect(u.needsSelection).toBe(true);
  });

  it('a single-host URL is handed to node-postgres unchanged (no selection, no extra round trip)', () => {
    for (const url of ['postgres://postgres:postgres@127.0.0.1:5432/payouts', 'postgres://localhost/db?sslmode=require']) {
      const u = parseDatabaseUrl(url);
      expect(u.needsSelection).toBe(false);
      expect(u.hostUrls).toEqual([url]);
    }
  });

  it('one host with target_session_attrs=read-write is checked like libpq does', () => {
    const u = parseDatabaseUrl('postgres://u@a:1/d?target_session_attrs=read-write');
    expect(u.needsSelection).toBe(true);
    expect(u.hostUrls).toEqual(['postgres://u@a:1/d']);
  });

  it.each([
    ['mysql://u@a:1,b:2/d', /postgres:\/\//],
    ['postgres://u@a:1,b:x/d', /host "b:x"/],
    ['postgres://u@a:1,b:70000/d', /out of range/],
    ['postgres://u@a:1,,b:2/d', /host ""/],
    ['postgres://u@a:1,b:2/d?target_session_attrs=writable', /target_session_attrs=writable is not one of/],
    ['not a url', /postgres:\/\//],
  ])('refuses %s with the reason', (url, why) => {
    expect(() => parseDatabaseUrl(url)).toThrow(DatabaseUrlError);
    expect(() => parseDatabaseUrl(url)).toThrow(why);
  });

  it('the configuration accepts the multi-host form and names what is wrong in a malformed one at startup', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:6001,127.0.0.1:6002/postgres?target_session_attrs=read-write' }).DATABASE_URL).toContain(',');
    expect(loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/payouts' }).DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/payouts');
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@a:1,b:2/d?target_session_attrs=writable' })).toThrow(/DATABASE_URL: DATABASE_URL is not a PostgreSQL URL: target_session_attrs=writable/);
    expect(() => loadConfig({ DATABASE_URL: 'nonsense' })).toThrow(/Invalid configuration:\n {2}DATABASE_URL/);
  });

  it('withDatabase names another database on the same hosts', () => {
    expect(withDatabase('postgres://postgres@127.0.0.1:1,127.0.0.1:2/postgres?target_session_attrs=read-write', 't_1')).toBe('postgres://postgres@127.0.0.1:1,127.0.0.1:2/t_1?target_session_attrs=read-write');
    expect(withDatabase('postgres://u:p@h:5432', 't_2')).toBe('postgres://u:p@h:5432/t_2');
  });
});
