import { z } from 'zod';
import { parseIntMap, parseRateRoutes } from './domain/rate-routes';
import { mergeSettings } from './seams/merge';
import type { SeamModule } from './seams/module';
import { SEAM_REGISTRIES } from './seams/registry';
import { isoDuration, ok } from './seams/settings';
import { parseDatabaseUrl } from './db/database-url';

/**
 * The service's own variables (not any seam module's); each is documented by hand in
 * docs/configuration.md "Service variables".
 */
const baseSettings = {
  /** One URL, or libpq's multi-host form with target_session_attrs (src/db/database-url.ts; docs/operations.md "Following the primary"). */
  DATABASE_URL: z
    .string()
    .superRefine((v, ctx) => {
      try {
        parseDatabaseUrl(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    })
    .optional(),
  /** Multi-host DATABASE_URL: a host that does not complete the connection within this is skipped. */
  DATABASE_CONNECT_TIMEOUT: isoDuration('PT2S').default('PT2S'),
  /** Multi-host DATABASE_URL: how long acquiring a connection waits for a writable host (a failover) before failing. */
  DATABASE_FAILOVER_WAIT: isoDuration('PT30S').default('PT30S'),
  /** `standby`: the read paths of docs/operations.md "Reads from the standby" use a standby in sync within DATABASE_STANDBY_MAX_LAG. */
  DATABASE_READS: z.enum(['primary', 'standby']).default('primary'),
  DATABASE_STANDBY_MAX_LAG: isoDuration('PT1S').default('PT1S'),
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TLS: z
    .enum(['true', 'false', ''])
    .default('')
    .transform((v) => v === 'true'),
  TEMPORAL_TLS_CA_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  TASK_QUEUE: z.string().default('payments'),
  /** Prefix of the rail inbox and collection-window workflow ids, for deployments sharing one namespace. */
  WORKFLOW_ID_PREFIX: z.string().default(''),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./.data'),
  WORKFLOW_BUNDLE: z.string().optional(),
  PUBLIC_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  METRICS_TOKEN: z.string().min(16).optional(),
  WORKER_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(2000).default(100),
  WORKER_ACTIVITY_TASKS: z.coerce.number().int().min(1).max(2000).default(200),
  WORKER_LOCAL_ACTIVITIES: z.coerce.number().int().min(1).max(2000).default(100),
  WORKER_CACHED_WORKFLOWS: z.coerce.number().int().min(2).max(100_000).default(2000),
  WORKER_WORKFLOW_POLLERS: z
    .string()
    .regex(/^(auto|[1-9][0-9]{0,3})$/, 'a number of pollers (1 or more) or `auto`')
    .default('10'),
  WORKER_WORKFLOW_THREADS: z.coerce.number().int().min(0).max(16).default(0),
  WORKER_ACTIVATION_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(0),
  WORKER_WORKFLOW_STACK_TRACES: z
    .enum(['true', 'false', ''])
    .default('')
    .transform((v) => v === 'true'),
  /** `true`: the worker starts without the retired-patch check (docs/operations.md "Retiring a workflow patch"). */
  WORKER_SKIP_PATCH_CHECK: z
    .enum(['true', 'false', ''])
    .default('')
    .transform((v) => v === 'true'),
  PAUSED_CHANNELS: z.string().default(''),
  SANDBOX_ARRIVAL: z.string().default('PT0.2S'),
  RATE_LIMIT_LIVE_PER_SECOND: z.coerce.number().int().min(0).default(100),
  RATE_LIMIT_SANDBOX_PER_SECOND: z.coerce.number().int().min(0).default(25),
  MAX_BODY_BYTES: z.coerce.number().int().positive().default(5 * 1024 * 1024),
  PAYOUT_APPROVAL_TIMEOUT: isoDuration('P7D')
    .default('P7D'),
  PAYEE_CONFIRMATION_WINDOW: isoDuration('P1D')
    .default('P1D'),
  // --- Treasury: the daily reconciliation of the settlement accounts (issue #33, docs/treasury.md) ---
  TREASURY_BOOKS_ONLY_GRACE: isoDuration('PT15M')
    .default('PT15M'),
  // --- end of Treasury ---
  RETENTION_INTERVAL: isoDuration('PT1H')
    .default('PT1H'),
  WEBHOOK_RETRY_INITIAL: isoDuration('PT5S')
    .default('PT5S'),

  // ---- Live rates (issue #33; docs/rates.md, docs/configuration.md "Live rates") ----
  RATE_ROUTES: z
    .string()
    .default('USD=kraken@PT5M,EUR=ecb@P4D|kraken@PT5M,MXN=banxico@P4D|ecb@P4D,BRL=ecb@P4D,GBP=ecb@P4D,INR=ecb@P4D,AUD=ecb@P4D')
    .refine((v) => ok(() => parseRateRoutes(v)), 'CUR=source@maxAge|source@maxAge, comma-separated (e.g. EUR=ecb@P4D|kraken@PT5M)'),
  RATE_REFRESH_INTERVAL: isoDuration('PT30S').default('PT30S'),
  RATE_FETCH_TIMEOUT: isoDuration('PT5S').default('PT5S'),
  RATE_CACHE_TTL: isoDuration('PT1S').default('PT1S'),
  RATE_MAX_MOVE_BPS: z.coerce.number().int().min(1).max(100000).default(500),
  RATE_SPREAD_BPS: z
    .string()
    .default('default=50,sepa_eur=40,ach_usd=10,spei_mxn=50')
    .refine((v) => ok(() => parseIntMap(v, 5000, 'RATE_SPREAD_BPS')), 'channel=bps pairs, each 0 to 5000'),
  RATE_BUSINESS_SPREAD_BPS: z
    .string()
    .default('')
    .refine((v) => ok(() => parseIntMap(v, 5000, 'RATE_BUSINESS_SPREAD_BPS')), 'business:channel=bps pairs, each 0 to 5000'),
  RATE_DEPOSIT_SPREAD_BPS: z
    .string()
    .default('USD=0,EUR=25,MXN=35')
    .refine((v) => ok(() => parseIntMap(v, 5000, 'RATE_DEPOSIT_SPREAD_BPS')), 'CUR=bps pairs, each 0 to 5000'),
  // ---- end of live rates ----
  // --- Notifications: live providers (issue #34; docs/notifications.md; docs/configuration.md "Notification providers") ---
  NOTIFY_CALLBACK_BASE_URL: z.string().url().optional(),
  NOTIFY_PROVIDER_TIMEOUT: isoDuration('PT10S').default('PT10S'),
  // --- end of notification providers ---
  // --- Seam modules' own settings (docs/architecture.md "Seams"): each module's variables, merged here ---
  // --- end of seam modules' settings ---
  // --- Security (issue #36; docs/configuration.md "Security", docs/security.md) ---
  /** Unset: the embedded development key `dev` (public; refused when NODE_ENV=production). */
  SECRETS_KEYS: z
    .string()
    .regex(/^\s*[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=_-]{43,44}\s*(,\s*[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=_-]{43,44}\s*)*$/, 'a comma list of <key id>:<base64 of 32 bytes>')
    .optional(),
  SECRETS_ACTIVE_KEY_ID: z.string().min(1).max(32).optional(),
  DATABASE_ROLE: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/).optional(),
  NODE_ENV: z.string().optional(),
};

/**
 * Typed environment of every process: the service's own variables plus every registered seam
 * module's `settings` (src/seams/registry.ts; docs/architecture.md "Seams"), merged at load.
 * docs/configuration.md documents each (the modules' tables generated by `npm run docs:config`).
 * Unset variables take the embedded defaults `npm run dev` needs. Generic over the registries so a
 * test can build the schema with one more module (test/unit/seams-fixture-rail.test.ts).
 */
export function configSchemaOf<const R extends readonly (readonly SeamModule[])[]>(registries: R) {
  return z.object(mergeSettings(baseSettings, registries));
}

const schema = configSchemaOf(SEAM_REGISTRIES);

/** Parses `env` with `s`; throws `Invalid configuration:` with one line per bad variable (`  NAME: message`). */
export function parseEnvironment<S extends z.ZodType>(s: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const parsed = s.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** Every environment variable the service reads (docs/configuration.md lists each one; test/unit/docs-config.test.ts). */
export const CONFIG_VARIABLES = Object.keys(schema.shape);

export type Config = z.infer<typeof schema> & { pausedChannels: ReadonlySet<string>; publicUrl: string };

/** Reads and validates the environment; throws a readable error listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const base = { ...parseEnvironment(schema, env), ...overrides };
  return {
    ...base,
    pausedChannels: new Set(
      base.PAUSED_CHANNELS.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
    publicUrl: (base.PUBLIC_URL ?? `http://localhost:${base.PORT}`).replace(/\/$/, ''),
    ...(overrides.pausedChannels ? { pausedChannels: overrides.pausedChannels } : {}),
  };
}
