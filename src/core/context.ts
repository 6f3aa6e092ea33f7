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
  /** Where the request came from, for the audit trail (src/core/audit.ts); absent outside a request. */
  source?: RequestSource;
}

/** Where a request came from (docs/security.md "Audit trail"). */
export interface RequestSource {
  /** The socket peer's address as the API process saw it; null in process or from the CLI. */
  ip: string | null;
  /** The X-Forwarded-For header as sent (not trusted). */
  forwardedFor: string | null;
  userAgent: string | null;
  requestId: string | null;
}
