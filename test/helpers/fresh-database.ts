import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate, openDb } from '../../src/db/connection';
import type { Db } from '../../src/db/schema';

/**
 * A migrated database of its own for a test file that needs no Temporal: a new PostgreSQL database
 * in the cluster of DATABASE_URL when it is set, else in-memory PGlite. `url` is the new database's
 * URL (PostgreSQL only); `close` drops it.
 */
export async function freshDatabase(): Promise<{ db: Db; url?: string; close: () => Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const db = await openDb({ memory: true });
    await migrate(db);
    return { db, close: () => db.destroy() };
  }
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  const db = await openDb({ url: u.toString() }, { poolSize: 4 });
  await migrate(db);
  return {
    db,
    url: u.toString(),
    close: async () => {
      await db.destroy();
      const a = new pg.Client({ connectionString: url });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`).catch(() => {});
      await a.end();
    },
  };
}
