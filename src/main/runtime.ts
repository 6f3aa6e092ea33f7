import { join, resolve } from 'node:path';
import type { Config } from '../config';
import type { Core } from '../core/context';
import { createLogger } from '../core/logging';
import { actAsRole, type AppRole, databaseRole, type DbTarget, migrate, openDb } from '../db/connection';
import { keyringFor } from '../core/secrets';
import { failoverSettingsOf } from '../db/primary';
import { openStandbyReads, StandbyReadsUnavailableError } from '../db/standby-reads';
import { parseDuration } from '../domain/durations';
import { sandboxAdapters } from '../sandbox/adapters';
import { createScreeningServices } from '../core/screening/service';
import { connectTemporal } from '../temporal/client';
import { drainWorkflowStarts } from '../core/workflow-starts';
import { temporalConnectionOptions } from '../temporal/connection-options';

/**
 * Builds a process's core: opens the database (PostgreSQL or PGlite), runs migrations as owner,
 * then acts as the process's role (docs/security.md "Database roles"), and connects Temporal.
 * Throws DatabaseRoleError when the role is missing.
 */
export async function buildCore(config: Config, opts: { memoryDb?: boolean; role?: AppRole } = {}): Promise<Core> {
  const log = createLogger({ level: config.LOG_LEVEL });
  const target: DbTarget = config.DATABASE_URL ? { url: config.DATABASE_URL, failover: failoverSettingsOf(config) } : opts.memoryDb ? { memory: true } : { pgliteDir: resolve(join(config.DATA_DIR)) };
  let db = await openDb(target);
  await migrate(db);
  const role = databaseRole(config.DATABASE_ROLE, opts.role);
  if (role) db = await actAsRole(db, target, role);
  keyringFor(config); // refuses the development secrets key when NODE_ENV=production
  // DATABASE_READS=standby: the listed read paths may read a standby in sync (docs/operations.md "Reads from the standby").
  const reads =
    config.DATABASE_READS === 'standby' && 'url' in target
      ? (await openStandbyReads(db, target.url, { maxLagMs: parseDuration(config.DATABASE_STANDBY_MAX_LAG), failover: target.failover, role: role ?? undefined })).db
      : undefined;
  if (config.DATABASE_READS === 'standby' && !reads) throw new StandbyReadsUnavailableError();
  const temporal = await connectTemporal(temporalConnectionOptions(config), config.TEMPORAL_NAMESPACE);
  return { db, reads, temporal, config, log, now: () => new Date(), sandbox: sandboxAdapters(), screening: createScreeningServices(db, config, log) };
}


/** Closes what {@link buildCore} opened, after this process's handed-off starts are made (at most 5 s). */
export async function closeCore(core: Core): Promise<void> {
  await drainWorkflowStarts(core);
  await core.temporal.connection.close().catch(() => {});
  await core.reads?.destroy();
  await core.db.destroy();
}
