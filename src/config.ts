import { z } from 'zod';
import { parseDuration } from './domain/durations';
import { parseIntMap, parseRateRoutes } from './domain/rate-routes';
import { NOTIFICATION_PROVIDERS } from './notifications/registry';
import { RATE_SOURCES } from './rates/index';

/** The settings of every seam module this branch registers (docs/architecture.md "Seams"). */
const SEAM_MODULES = [...NOTIFICATION_PROVIDERS, ...RATE_SOURCES] as const;
const SEAM_SETTINGS = Object.assign({}, ...SEAM_MODULES.map((m) => m.settings)) as UnionToIntersection<(typeof SEAM_MODULES)[number]['settings']>;
type UnionToIntersection<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never;

/** Whether `fn` returns without throwing (config refinements over domain parsers). */
const ok = (fn: () => unknown) => {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
};

/** A positive ISO 8601 duration (e.g. `example`) or milliseconds, as a string variable. */
const isoDuration = (example: string) =>
  z.string().refine((v) => {
    try {
      return parseDuration(v) > 0;
    } catch {
      return false;
    }
  }, `a positive ISO 8601 duration such as ${example}, or milliseconds`);

/**
 * Typed environment of every process; each variable, its default and its units are documented in
 * docs/configuration.md. Unset variables take the embedded defaults `npm run dev` needs.
 */
const schema = z.object({
  DATABASE_URL: z.string().url().optional(),
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
  PAUSED_CHANNELS: z.string().default(''),
  SANDBOX_ARRIVAL: z.string().default('PT0.2S'),
  RATE_LIMIT_LIVE_PER_SECOND: z.coerce.number().int().min(0).default(100),
  RATE_LIMIT_SANDBOX_PER_SECOND: z.coerce.number().int().min(0).default(25),
  MAX_BODY_BYTES: z.coerce.number().int().positive().default(5 * 1024 * 1024),
  PAYOUT_APPROVAL_TIMEOUT: isoDuration('P7D')
    .default('P7D'),
  RAIL_SEPA_SFTP_HOST: z.string().min(1).optional(),
  RAIL_SEPA_SFTP_PORT: z.coerce.number().int().min(1).max(65535).default(22),
  RAIL_SEPA_SFTP_USER: z.string().min(1).optional(),
  /** Never logged (read at connect time). */
  RAIL_SEPA_SFTP_KEY_PATH: z.string().min(1).optional(),
  RAIL_SEPA_SFTP_HOST_KEY: z
    .string()
    .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'SHA256:<43 base64 characters>, as ssh-keygen -lf prints it')
    .optional(),
  RAIL_SEPA_UPLOAD_DIR: z.string().min(1).default('inbox'),
  RAIL_SEPA_DOWNLOAD_DIR: z.string().min(1).default('outbox'),
  RAIL_SEPA_DEBTOR_NAME: z.string().min(1).max(70).optional(),
  RAIL_SEPA_DEBTOR_IBAN: z.string().min(15).max(34).optional(),
  RAIL_SEPA_DEBTOR_BIC: z
    .string()
    .regex(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/, 'a BIC of 8 or 11 characters')
    .optional(),
  RAIL_SEPA_BANK_NAME: z.string().min(1).max(140).default('Partner bank'),
  RAIL_SEPA_CUTOFF: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM (24 h)')
    .default('14:00'),
  RAIL_SEPA_TIME_ZONE: z.string().default('Europe/Brussels'),
  RAIL_SEPA_BATCH_WINDOW: isoDuration('PT15M')
    .default('PT15M'),
  RAIL_SEPA_POLL_INTERVAL: isoDuration('PT1M')
    .default('PT1M'),
  RAIL_SEPA_RETURN_WINDOW: isoDuration('P14D')
    .default('P14D'),
  RAIL_SEPA_VIRTUAL_IBAN_RANGE: z
    .string()
    .regex(/^[A-Z]{2}:[0-9A-Z]{4,}$/, '<country>:<leading BBAN characters>, e.g. DE:370400440532')
    .optional(),
  RAIL_ACH_SFTP_HOST: z.string().min(1).optional(),
  RAIL_ACH_SFTP_PORT: z.coerce.number().int().min(1).max(65535).default(22),
  RAIL_ACH_SFTP_USER: z.string().min(1).optional(),
  /** Never logged (read at connect time). */
  RAIL_ACH_SFTP_KEY_PATH: z.string().min(1).optional(),
  RAIL_ACH_SFTP_HOST_KEY: z
    .string()
    .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'SHA256:<43 base64 characters>, as ssh-keygen -lf prints it')
    .optional(),
  RAIL_ACH_UPLOAD_DIR: z.string().min(1).default('inbox'),
  RAIL_ACH_DOWNLOAD_DIR: z.string().min(1).default('outbox'),
  RAIL_ACH_ODFI_ROUTING: z
    .string()
    .regex(/^[0-9]{9}$/, '9 digits (an ABA routing number)')
    .optional(),
  RAIL_ACH_ODFI_NAME: z.string().min(1).max(23).default('PARTNER BANK'),
  RAIL_ACH_COMPANY_ID: z
    .string()
    .regex(/^[0-9A-Z ]{10}$/, '10 characters (digits, upper-case letters, spaces)')
    .optional(),
  RAIL_ACH_COMPANY_NAME: z.string().min(1).max(16).default('PAYOUTS'),
  RAIL_ACH_ENTRY_DESCRIPTION: z.string().min(1).max(10).default('PAYOUT'),
  RAIL_ACH_SAME_DAY_CUTOFF: z
    .string()
    .regex(/^(([01]\d|2[0-3]):[0-5]\d)?$/, 'HH:MM (24 h), or empty to send next-day only')
    .default('14:45'),
  RAIL_ACH_TIME_ZONE: z.string().default('America/New_York'),
  RAIL_ACH_BATCH_WINDOW: isoDuration('PT15M')
    .default('PT15M'),
  RAIL_ACH_POLL_INTERVAL: isoDuration('PT1M')
    .default('PT1M'),
  RAIL_ACH_RETURN_WINDOW: isoDuration('P60D')
    .default('P60D'),
  /** Testing and demos only: settle an uploaded file this long after upload. Unset in production. */
  RAIL_ACH_SETTLE_AFTER: isoDuration('PT3S').optional(),
  RAIL_ACH_VIRTUAL_ACCOUNT_RANGE: z
    .string()
    .regex(/^[0-9]{9}:[0-9]{1,10}$/, '<routing number>:<leading account digits>, e.g. 091000019:99988')
    .optional(),
  // --- Bank files at scale (issue #39; docs/rails.md "Bank files at scale", docs/configuration.md "Bank files at scale") ---
  /** Most transactions in one pain.001 (1-100,000); a window with more is split into several files, each valid and uploaded. */
  RAIL_SEPA_MAX_FILE_TRANSACTIONS: z.coerce.number().int().min(1).max(100_000).default(10_000),
  /** Most entries in one NACHA file (1-100,000); a window with more is split into several files, each valid and uploaded. */
  RAIL_ACH_MAX_FILE_TRANSACTIONS: z.coerce.number().int().min(1).max(100_000).default(10_000),
  // --- end of Bank files at scale ---
  // --- Treasury: the daily reconciliation of the settlement accounts (issue #33, docs/treasury.md) ---
  TREASURY_BOOKS_ONLY_GRACE: isoDuration('PT15M')
    .default('PT15M'),
  // --- end of Treasury ---
  // --- Payout partner rail: the Wise Platform API (issue #35; docs/rails.md "Payout partner", docs/configuration.md "Payout partner")
  RAIL_WISE_API_URL: z.string().url().optional(),
  RAIL_WISE_API_TOKEN: z.string().min(1).optional(),
  RAIL_WISE_PROFILE_ID: z.string().regex(/^[0-9]+$/, 'a numeric Wise profile id').optional(),
  RAIL_WISE_WEBHOOK_PUBLIC_KEY: z.string().min(1).optional(),
  RAIL_WISE_BALANCE_CURRENCY: z.string().regex(/^[A-Z]{3}$/).default('USD'),
  RAIL_WISE_TIMEOUT: isoDuration('PT10S').default('PT10S'),
  RAIL_WISE_POLL_INTERVAL: isoDuration('PT30S').default('PT30S'),
  RAIL_WISE_WEBHOOK_LATE_AFTER: isoDuration('PT2M').default('PT2M'),
  RAIL_WISE_WEBHOOK_TOLERANCE: isoDuration('PT5M').default('PT5M'),
  RAIL_WISE_RETURN_WINDOW: isoDuration('P30D').default('P30D'),
  RAIL_WISE_RETURN_POLL_INTERVAL: isoDuration('PT12H').default('PT12H'),
  // --- end of payout partner rail
  // --- USDC on Solana (issue #37; docs/getting-paid.md "Crypto deposits", docs/configuration.md "USDC on Solana") ---
  SOLANA_RPC_URL: z.string().url().optional(),
  SOLANA_USDC_MINT: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a base58 Solana address').optional(),
  /** Secret, never logged; derivation of the deposit keys in src/solana/keys.ts. */
  SOLANA_DEPOSIT_SEED: z.string().regex(/^[0-9a-fA-F]{64}$/, '64 hex characters (32 bytes)').optional(),
  SOLANA_MINIMUM_DEPOSIT: z.string().regex(/^[0-9]{1,7}(\.[0-9]{1,6})?$/, 'a USDC amount such as 1.00').default('1.00'),
  SOLANA_POLL_INTERVAL: isoDuration('PT5S')
    .default('PT5S'),
  SOLANA_TREASURY_TOKEN_ACCOUNT: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a base58 Solana address').optional(),
  /** Secret, never logged. */
  SOLANA_FEE_PAYER_SEED: z.string().regex(/^[0-9a-fA-F]{64}$/, '64 hex characters (32 bytes)').optional(),
  SOLANA_FEE_PAYER_MIN_LAMPORTS: z.coerce.number().int().min(0).default(50_000_000),
  SOLANA_SWEEP_INTERVAL: isoDuration('PT10M')
    .default('PT10M'),
  SOLANA_SANDBOX_RPC_URL: z.string().url().optional(),
  SOLANA_SANDBOX_USDC_MINT: z
    .string()
    .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a base58 Solana address')
    .default('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'),
  SOLANA_SANDBOX_DEPOSIT_SEED: z.string().regex(/^[0-9a-fA-F]{64}$/, '64 hex characters (32 bytes)').optional(),
  // --- end USDC on Solana ---
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
  ...SEAM_SETTINGS,
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
});

/** Every environment variable the service reads (docs/configuration.md lists each one; test/unit/docs-config.test.ts). */
export const CONFIG_VARIABLES = Object.keys(schema.shape);

export type Config = z.infer<typeof schema> & { pausedChannels: ReadonlySet<string>; publicUrl: string };

/** Reads and validates the environment; throws a readable error listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const base = { ...parsed.data, ...overrides };
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
