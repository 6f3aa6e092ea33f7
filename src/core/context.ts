import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Db, Environment } from '../db/schema';
import type { RailAdapter } from '../rails/adapter';
import type { TemporalClient } from '../temporal/client';
import type { NotificationProvider } from './notifications/provider';

/**
 * What the sandbox environment is made of, handed to the core at composition (src/main/runtime.ts
 * passes src/sandbox/adapters.ts; docs/sandbox.md "Adapters"): the core never imports src/sandbox.
 */
export interface SandboxAdapters {
  /** The sandbox's fixed USDC/`currency` mid rate, a decimal string (its rate source). */
  midRate(currency: string): string;
  /** A sandbox claim-link payout's claim window in ms for its reference (magic values, docs/sandbox.md). */
  claimWindowMs(reference: string | null): number;
  /** The simulated rail serving every rail of the sandbox. */
  railAdapter(config: Config): RailAdapter;
  /** The provider that records sandbox notifications instead of sending them. */
  notificationProvider(db: Db): NotificationProvider;
}

/** The one core every surface and the worker share; services are plain functions `(core, caller, input)`. */
export interface Core {
  db: Db;
  /** Core passes it to the gateways in src/temporal, never calls it itself. */
  temporal: TemporalClient;
  config: Config;
  log: Logger;
  now: () => Date;
  /** The sandbox environment's adapters (rate table, claim window, rail, notifications). */
  sandbox: SandboxAdapters;
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
