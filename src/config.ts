import { z } from 'zod';
import { parseDuration } from './domain/durations';

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
 * Typed environment of every process (docs/architecture.md "Layers"). Unset variables take the
 * embedded defaults that let `npm run dev` work on a fresh machine.
 */
const schema = z.object({
  /** PostgreSQL URL. Unset: PGlite (in-process Postgres) persisted under DATA_DIR. */
  DATABASE_URL: z.string().url().optional(),
  /** host:port of the Temporal frontend. Unset in `npm run dev`: a dev server is started. */
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  /**
   * Temporal over TLS (docs/operations.md "Temporal TLS"; src/temporal/connection-options.ts).
   * `true` turns TLS on with the system's roots; any of the variables below also turns it on.
   */
  TEMPORAL_TLS: z
    .enum(['true', 'false', ''])
    .default('')
    .transform((v) => v === 'true'),
  /** PEM file of the CA that signed the Temporal server's certificate (unset: the system's roots). */
  TEMPORAL_TLS_CA_PATH: z.string().min(1).optional(),
  /** mTLS: PEM file of the client certificate (with TEMPORAL_TLS_KEY_PATH). */
  TEMPORAL_TLS_CERT_PATH: z.string().min(1).optional(),
  /** mTLS: PEM file of the client certificate's private key (with TEMPORAL_TLS_CERT_PATH). */
  TEMPORAL_TLS_KEY_PATH: z.string().min(1).optional(),
  /** Server name to verify the certificate against when it differs from TEMPORAL_ADDRESS's host. */
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  /** API key for Temporal Cloud (sent as a bearer token; implies TLS). */
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /** Task queue of the payments worker (docs/architecture.md "Workflow ids and task queues"). */
  TASK_QUEUE: z.string().default('payments'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Address the API listens on (`npm run api`); 127.0.0.1 keeps it on loopback (tests, local runs). */
  HOST: z.string().default('0.0.0.0'),
  /** Where `npm run dev` keeps PGlite and the Temporal SQLite file. */
  DATA_DIR: z.string().default('./.data'),
  /**
   * A workflow bundle built ahead of time (`npm run bundle:workflows <file>`). Unset: the worker has
   * one built by a child process at start-up (src/temporal/bundle.ts).
   */
  WORKFLOW_BUNDLE: z.string().optional(),
  /** Public origin used in receipt and claim URLs. Default http://localhost:PORT. */
  PUBLIC_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Port of the worker's own `GET /metrics` server (Prometheus; loopback and every interface, like
   * PORT). 0 picks a free port (logged). The API serves `/metrics` on PORT instead.
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /**
   * When set, `GET /metrics` (API and worker) requires `Authorization: Bearer <METRICS_TOKEN>`.
   * Unset: /metrics is open (it holds no tenant data; keep the port private). docs/operations.md.
   */
  METRICS_TOKEN: z.string().min(16).optional(),
  /**
   * Worker tuning (src/temporal/worker.ts `createWorker`; docs/benchmarks.md "Worker tuning"), per
   * `npm run worker` process. The payments worker (payouts and their activities):
   * WORKER_WORKFLOW_TASKS workflow tasks run at once (maxConcurrentWorkflowTaskExecutions),
   * WORKER_ACTIVITY_TASKS activities and WORKER_LOCAL_ACTIVITIES local activities at once,
   * WORKER_CACHED_WORKFLOWS workflows kept in the sticky cache (each about 1 MB of heap), and
   * WORKER_WORKFLOW_POLLERS long polls for workflow tasks (a number, at most WORKER_WORKFLOW_TASKS;
   * or `auto`: the SDK's autoscaling poller, 1 to 100), WORKER_WORKFLOW_THREADS threads running
   * workflow code (workflowThreadPoolSize; each thread is one reused V8 context). The disbursement
   * worker (batch queue) keeps its own small fixed values: a batch is one workflow.
   */
  WORKER_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(2000).default(100),
  WORKER_ACTIVITY_TASKS: z.coerce.number().int().min(1).max(2000).default(200),
  WORKER_LOCAL_ACTIVITIES: z.coerce.number().int().min(1).max(2000).default(100),
  WORKER_CACHED_WORKFLOWS: z.coerce.number().int().min(2).max(100_000).default(2000),
  WORKER_WORKFLOW_POLLERS: z
    .string()
    .regex(/^(auto|[1-9][0-9]{0,3})$/, 'a number of pollers (1 or more) or `auto`')
    .default('10'),
  WORKER_WORKFLOW_THREADS: z.coerce.number().int().min(1).max(16).default(1),
  /** Comma-separated channel ids reported as `paused` (using one is 400 channel_unavailable). */
  PAUSED_CHANNELS: z.string().default(''),
  /** Simulated rail arrival in the sandbox, as an ISO 8601 duration or milliseconds. */
  SANDBOX_ARRIVAL: z.string().default('PT0.2S'),
  /**
   * Requests per second each API key may make on Surfaces A and C, live and sandbox (Stripe's
   * anchor: 100 and 25). 0 turns the limit off. src/api/middleware/key-rate-limit.ts.
   */
  RATE_LIMIT_LIVE_PER_SECOND: z.coerce.number().int().min(0).default(100),
  RATE_LIMIT_SANDBOX_PER_SECOND: z.coerce.number().int().min(0).default(25),
  /** Largest accepted request body, in bytes (bigger is 413). CSV imports have their own limit. */
  MAX_BODY_BYTES: z.coerce.number().int().positive().default(5 * 1024 * 1024),
  /**
   * First delay of Surface A webhook retries (then doubling, capped at 1 hour, for 24 hours), as an
   * ISO 8601 duration (`PT5S`) or milliseconds. Tests shorten it (`PT0.2S`).
   */
  /**
   * How long a payout above its key's approval_threshold waits for POST /payouts/{id}/approve or
   * /reject before it is canceled and its hold released (ISO 8601 duration or milliseconds;
   * docs/getting-paid.md "Key policies"). Default 7 days.
   */
  PAYOUT_APPROVAL_TIMEOUT: isoDuration('P7D')
    .default('P7D'),
  /**
   * The live sepa_eur bank rail: ISO 20022 files over SFTP (docs/rails.md "Connecting a bank").
   * The channel is `live` only when host, user, key path, pinned host key and debtor account are
   * all set and the connection works; otherwise it stays `paused`.
   */
  RAIL_SEPA_SFTP_HOST: z.string().min(1).optional(),
  RAIL_SEPA_SFTP_PORT: z.coerce.number().int().min(1).max(65535).default(22),
  RAIL_SEPA_SFTP_USER: z.string().min(1).optional(),
  /** Path of the SFTP client's private key (read at connect time; never logged). */
  RAIL_SEPA_SFTP_KEY_PATH: z.string().min(1).optional(),
  /** The bank's pinned host key, as `ssh-keygen -lf` prints it: `SHA256:<base64>`. */
  RAIL_SEPA_SFTP_HOST_KEY: z
    .string()
    .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'SHA256:<43 base64 characters>, as ssh-keygen -lf prints it')
    .optional(),
  /** Directory on the bank's server we upload pain.001 files to. */
  RAIL_SEPA_UPLOAD_DIR: z.string().min(1).default('inbox'),
  /** Directory on the bank's server the bank writes pain.002 and camt.054 files to. */
  RAIL_SEPA_DOWNLOAD_DIR: z.string().min(1).default('outbox'),
  /** The platform's settlement account at the bank (the debtor of every pain.001). */
  RAIL_SEPA_DEBTOR_NAME: z.string().min(1).max(70).optional(),
  RAIL_SEPA_DEBTOR_IBAN: z.string().min(15).max(34).optional(),
  RAIL_SEPA_DEBTOR_BIC: z
    .string()
    .regex(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/, 'a BIC of 8 or 11 characters')
    .optional(),
  /** The bank's name, shown on live EUR virtual account details (bank_name). */
  RAIL_SEPA_BANK_NAME: z.string().min(1).max(140).default('Partner bank'),
  /** Daily cut-off, `HH:MM` in RAIL_SEPA_TIME_ZONE: files sent later execute on the next business day. */
  RAIL_SEPA_CUTOFF: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM (24 h)')
    .default('14:00'),
  RAIL_SEPA_TIME_ZONE: z.string().default('Europe/Brussels'),
  /** How long payouts are collected into one file before it is sent (ISO 8601 duration or ms). */
  RAIL_SEPA_BATCH_WINDOW: isoDuration('PT15M')
    .default('PT15M'),
  /** How often the bank's outbox directory is listed (ISO 8601 duration or ms). */
  RAIL_SEPA_POLL_INTERVAL: isoDuration('PT1M')
    .default('PT1M'),
  /** How long after settlement a return is still applied as a refund (ISO 8601 duration or ms). */
  RAIL_SEPA_RETURN_WINDOW: isoDuration('P14D')
    .default('P14D'),
  /**
   * The range of IBANs the bank assigned for live EUR virtual accounts: the IBAN's country code
   * and the BBAN's fixed leading digits, e.g. `DE:370400440532` (the rest of the BBAN is drawn at
   * random; check digits are computed). Unset: live EUR virtual accounts are unavailable.
   */
  RAIL_SEPA_VIRTUAL_IBAN_RANGE: z
    .string()
    .regex(/^[A-Z]{2}:[0-9A-Z]{4,}$/, '<country>:<leading BBAN characters>, e.g. DE:370400440532')
    .optional(),
  /**
   * The live ach_usd rail (docs/rails.md "ACH"): NACHA files over SFTP to the ODFI (our bank).
   * Unset host, user, key, host key, ODFI routing or company id: the channel stays `paused` in live.
   */
  RAIL_ACH_SFTP_HOST: z.string().min(1).optional(),
  RAIL_ACH_SFTP_PORT: z.coerce.number().int().min(1).max(65535).default(22),
  RAIL_ACH_SFTP_USER: z.string().min(1).optional(),
  /** Path of the private key (OpenSSH format) we log in to the ODFI's SFTP server with. */
  RAIL_ACH_SFTP_KEY_PATH: z.string().min(1).optional(),
  /** The ODFI's pinned host key, as `ssh-keygen -lf` prints it: `SHA256:<base64>`. */
  RAIL_ACH_SFTP_HOST_KEY: z
    .string()
    .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'SHA256:<43 base64 characters>, as ssh-keygen -lf prints it')
    .optional(),
  /** Directory on the ODFI's server we upload NACHA files to. */
  RAIL_ACH_UPLOAD_DIR: z.string().min(1).default('inbox'),
  /** Directory on the ODFI's server the ODFI writes return, NOC and incoming credit files to. */
  RAIL_ACH_DOWNLOAD_DIR: z.string().min(1).default('outbox'),
  /** The ODFI's ABA routing number (9 digits): the file's immediate destination and the trace numbers' first 8 digits. */
  RAIL_ACH_ODFI_ROUTING: z
    .string()
    .regex(/^[0-9]{9}$/, '9 digits (an ABA routing number)')
    .optional(),
  /** The ODFI's name in the file header (immediate destination name, at most 23 characters). */
  RAIL_ACH_ODFI_NAME: z.string().min(1).max(23).default('PARTNER BANK'),
  /** The originator's company identification (10 characters, usually `1` + the EIN), in each batch. */
  RAIL_ACH_COMPANY_ID: z
    .string()
    .regex(/^[0-9A-Z ]{10}$/, '10 characters (digits, upper-case letters, spaces)')
    .optional(),
  /** The originator's company name in each batch (what the receiver's statement shows, at most 16 characters). */
  RAIL_ACH_COMPANY_NAME: z.string().min(1).max(16).default('PAYOUTS'),
  /** The company entry description of each batch (at most 10 characters). */
  RAIL_ACH_ENTRY_DESCRIPTION: z.string().min(1).max(10).default('PAYOUT'),
  /** Same-day ACH cut-off, `HH:MM` in RAIL_ACH_TIME_ZONE; empty: every file is next-day. */
  RAIL_ACH_SAME_DAY_CUTOFF: z
    .string()
    .regex(/^(([01]\d|2[0-3]):[0-5]\d)?$/, 'HH:MM (24 h), or empty to send next-day only')
    .default('14:45'),
  RAIL_ACH_TIME_ZONE: z.string().default('America/New_York'),
  /** How long payouts are collected into one NACHA file before it is sent (ISO 8601 duration or ms). */
  RAIL_ACH_BATCH_WINDOW: isoDuration('PT15M')
    .default('PT15M'),
  /** How often the ODFI's outbox directory is listed (ISO 8601 duration or ms). */
  RAIL_ACH_POLL_INTERVAL: isoDuration('PT1M')
    .default('PT1M'),
  /** How long after settlement a return is still applied as a refund (ISO 8601 duration or ms; NACHA allows up to 60 days for some codes). */
  RAIL_ACH_RETURN_WINDOW: isoDuration('P60D')
    .default('P60D'),
  /**
   * Testing and demos only: settle an uploaded file this long after its upload instead of at the
   * Federal Reserve's settlement of its effective entry date (ISO 8601 duration or ms). Unset in production.
   */
  RAIL_ACH_SETTLE_AFTER: isoDuration('PT3S').optional(),
  /**
   * The account numbers the ODFI assigned for live USD virtual accounts: the routing number and
   * the account number's fixed leading digits, e.g. `091000019:99988` (the rest of the 12 digits
   * is drawn at random). Unset: live USD virtual accounts are unavailable.
   */
  RAIL_ACH_VIRTUAL_ACCOUNT_RANGE: z
    .string()
    .regex(/^[0-9]{9}:[0-9]{1,10}$/, '<routing number>:<leading account digits>, e.g. 091000019:99988')
    .optional(),
  /** How often the data-retention sweep runs (ISO 8601 duration or ms; docs/operations.md "Data retention"). */
  RETENTION_INTERVAL: isoDuration('PT1H')
    .default('PT1H'),
  WEBHOOK_RETRY_INITIAL: isoDuration('PT5S')
    .default('PT5S'),

  // --- Security (issue #36; docs/configuration.md "Security", docs/security.md) ---
  /**
   * Key-encryption keys for secrets stored in the database (webhook signing secrets): a comma list
   * of `<key id>:<base64 of 32 bytes>`. Unset: the embedded development key `dev` (public; refused
   * when NODE_ENV=production).
   */
  SECRETS_KEYS: z
    .string()
    .regex(/^\s*[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=_-]{43,44}\s*(,\s*[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=_-]{43,44}\s*)*$/, 'a comma list of <key id>:<base64 of 32 bytes>')
    .optional(),
  /** The key id of SECRETS_KEYS that encrypts new values (unset: the first listed). */
  SECRETS_ACTIVE_KEY_ID: z.string().min(1).max(32).optional(),
  /** The PostgreSQL role a process acts as after connecting (`SET ROLE`); unset: the process's own (payouts_api, payouts_worker, payouts_admin); `none`: no SET ROLE. */
  DATABASE_ROLE: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/).optional(),
  /** Set to `production` in a live deployment: the embedded development secrets key is then refused. */
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
