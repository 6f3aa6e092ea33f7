import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Db, Environment } from '../db/schema';
import type { TemporalClient } from '../temporal/client';

/**
 * The one core every surface and the worker share: database, Temporal client, configuration,
 * logger and clock. Services are plain functions `(core, caller, input)`.
 */
export interface Core {
  db: Db;
  /** Temporal client: core passes it to the gateways in src/temporal, never calls it itself. */
  temporal: TemporalClient;
  config: Config;
  log: Logger;
  /** The current time; tests may substitute it. */
  now: () => Date;
}

/** Who is calling: resolved from the API key by the auth middleware (spec "Authentication"). */
export interface Caller {
  businessId: string;
  environment: Environment;
  keyId: string;
  role: 'owner' | 'member';
  /** Key policy (spec: daily_budget, per_payout_max, channels, approval_threshold), if any. */
  policy: Record<string, unknown> | null;
}
