import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Db, Environment } from '../db/schema';
import type { RailAdapter } from '../rails/adapter';
import type { TemporalClient } from '../temporal/client';
import type { NotificationProvider } from './notifications/provider';
import type { ScreeningServices } from './screening/service';

/** The sandbox environment, handed to the core at composition (docs/sandbox.md "Adapters"): rate table (decimal USDC/currency mid), claim window in ms per reference, rail, notifications. */
export interface SandboxAdapters {
  midRate(currency: string): string;
  claimWindowMs(reference: string | null): number;
  railAdapter(config: Config): RailAdapter;
  notificationProvider(db: Db): NotificationProvider;
}

/** The one core every surface and the worker share; services are plain functions `(core, caller, input)`. */
export interface Core {
  db: Db;
  /** The listed read paths' handle (docs/operations.md "Reads from the standby"); through {@link readsOf}, never for a write's read. */
  reads?: Db;
  /** Core passes it to the gateways in src/temporal, never calls it itself. */
  temporal: TemporalClient;
  config: Config;
  log: Logger;
  now: () => Date;
  sandbox: SandboxAdapters;
  /** Sanctions screening per environment (docs/screening.md), matching in memory. */
  screening: ScreeningServices;
}

/** The handle of a read path that may be served by the standby (docs/operations.md "Reads from the standby"): `core.reads`, else `core.db`. */
export const readsOf = (core: Core): Db => core.reads ?? core.db;

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
