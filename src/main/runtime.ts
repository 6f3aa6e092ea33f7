import { join, resolve } from 'node:path';
import type { Config } from '../config';
import type { Core } from '../core/context';
import { createLogger } from '../core/logging';
import { migrate, openDb } from '../db/connection';
import { connectTemporal } from '../temporal/client';
import { drainWorkflowStarts } from '../core/workflow-starts';
import { temporalConnectionOptions } from '../temporal/connection-options';

/**
 * Builds the core of a process from its configuration: opens the database (PostgreSQL when
 * DATABASE_URL is set, else PGlite under DATA_DIR), runs migrations (advisory-locked, so safe from
 * every process at once) and connects the Temporal client.
 */
export async function buildCore(config: Config, opts: { memoryDb?: boolean } = {}): Promise<Core> {
  const log = createLogger({ level: config.LOG_LEVEL });
  const db = config.DATABASE_URL
    ? await openDb({ url: config.DATABASE_URL })
    : opts.memoryDb
      ? await openDb({ memory: true })
      : await openDb({ pgliteDir: resolve(join(config.DATA_DIR)) });
  await migrate(db);
  const temporal = await connectTemporal(temporalConnectionOptions(config), config.TEMPORAL_NAMESPACE);
  return { db, temporal, config, log, now: () => new Date() };
}

/**
 * Closes what {@link buildCore} opened (PGlite must be closed to flush to disk), after the
 * workflow starts this process handed off are made (at most 5 s; the relay makes any left).
 */
export async function closeCore(core: Core): Promise<void> {
  await drainWorkflowStarts(core);
  await core.temporal.connection.close().catch(() => {});
  await core.db.destroy();
}
