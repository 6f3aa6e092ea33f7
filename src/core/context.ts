import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Db, Environment } from '../db/schema';
import type { TemporalClient } from '../temporal/client';

/** The one core every surface and the worker share; services are plain functions `(core, caller, input)`. */
export interface Core {
  db: Db;
  /** Core passes it to the gateways in src/temporal, never calls it itself. */
  temporal: TemporalClient;
  config: Config;
  log: Logger;
  now: () => Date;
}

/** Resolved from the API key (spec "Authentication"). */
export interface Caller {
  businessId: string;
  environment: Environment;
  keyId: string;
  role: 'owner' | 'member';
  policy: Record<string, unknown> | null;
  source?: RequestSource;
}

export interface RequestSource {
  /** The socket peer's address; null in process or from the CLI. */
  ip: string | null;
  /** As sent (not trusted). */
  forwardedFor: string | null;
  userAgent: string | null;
  requestId: string | null;
}
