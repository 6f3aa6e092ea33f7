import { z } from 'zod';
import { parseDuration } from './domain/durations';
import { parseIntMap, parseRateRoutes } from './domain/rate-routes';

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
  // --- Bank files at scale (issue #39; docs/rails.md "Bank files at scale", docs/configuration.md "Bank files at scale") ---
  /** Most transactions in one pain.001 (1-100,000); a window with more is split into several files, each valid and uploaded. */
  RAIL_SEPA_MAX_FILE_TRANSACTIONS: z.coerce.number().int().min(1).max(100_000).default(10_000),
  /** Most entries in one NACHA file (1-100,000); a window with more is split into several files, each valid and uploaded. */
  RAIL_ACH_MAX_FILE_TRANSACTIONS: z.coerce.number().int().min(1).max(100_000).default(10_000),
  // --- end of Bank files at scale ---
  // --- Treasury: the daily reconciliation of the settlement accounts (issue #33, docs/treasury.md) ---
  /**
   * How long after our books expect a movement on a settlement account the bank may still leave it
   * off its statements before it is a `books_only` break (ISO 8601 duration or ms); younger ones
   * count as in transit.
   */
  TREASURY_BOOKS_ONLY_GRACE: isoDuration('PT15M')
    .default('PT15M'),
  // --- end of Treasury ---
  // --- Payout partner rail: the Wise Platform API (issue #35; docs/rails.md "Payout partner", docs/configuration.md "Payout partner")
  /** Base URL of the partner's API, e.g. `https://api.wise.com` (sandbox `https://api.sandbox.transferwise.tech`). Unset: the partner rail is not configured. */
  RAIL_WISE_API_URL: z.string().url().optional(),
  /** The partner API token (Bearer), from configuration only. */
  RAIL_WISE_API_TOKEN: z.string().min(1).optional(),
  /** The business profile id that funds transfers from its balance. */
  RAIL_WISE_PROFILE_ID: z.string().regex(/^[0-9]+$/, 'a numeric Wise profile id').optional(),
  /** The partner's published webhook public key (PEM text, or a path to a PEM file): X-Signature-SHA256 is RSA-SHA256 over the body with it. */
  RAIL_WISE_WEBHOOK_PUBLIC_KEY: z.string().min(1).optional(),
  /** The balance currency transfers are funded from (ISO 4217): the quote's source currency. */
  RAIL_WISE_BALANCE_CURRENCY: z.string().regex(/^[A-Z]{3}$/).default('USD'),
  /** How long one partner API call may take before its outcome counts as unknown (the attempt is asked again with the same customerTransactionId). */
  RAIL_WISE_TIMEOUT: isoDuration('PT10S').default('PT10S'),
  /** How often the partner rail's poller runs (transfers whose webhook is late are asked for). */
  RAIL_WISE_POLL_INTERVAL: isoDuration('PT30S').default('PT30S'),
  /** A transfer whose state has not changed for this long is asked for by polling (the webhook is late). */
  RAIL_WISE_WEBHOOK_LATE_AFTER: isoDuration('PT2M').default('PT2M'),
  /** A webhook whose `sent_at` is further than this from now is refused as a replay. */
  RAIL_WISE_WEBHOOK_TOLERANCE: isoDuration('PT5M').default('PT5M'),
  /** How long after `outgoing_payment_sent` a bounce is still applied (the payout is refunded). */
  RAIL_WISE_RETURN_WINDOW: isoDuration('P30D').default('P30D'),
  // --- end of payout partner rail
  // --- USDC on Solana (issue #37; docs/getting-paid.md "Crypto deposits", docs/configuration.md "USDC on Solana") ---
  /**
   * JSON-RPC URL of a Solana node for the live environment. With SOLANA_USDC_MINT and
   * SOLANA_DEPOSIT_SEED it turns on live crypto funding: deposit addresses, the watcher, the sweeps.
   * Unset: the live GET /funding/crypto is 400 channel_unavailable and live crypto payment links are not ready.
   */
  SOLANA_RPC_URL: z.string().url().optional(),
  /** The USDC mint (base58) the live watcher credits; every other mint is ignored. */
  SOLANA_USDC_MINT: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a base58 Solana address').optional(),
  /**
   * Master seed of the live deposit keys (32 bytes as 64 hex characters; secret, never logged):
   * the deposit owner key of a business is the ed25519 key whose seed is the first 32 bytes of
   * HMAC-SHA512(seed, `business:<id>:<environment>`) (src/solana/keys.ts).
   */
  SOLANA_DEPOSIT_SEED: z.string().regex(/^[0-9a-fA-F]{64}$/, '64 hex characters (32 bytes)').optional(),
  /** Smallest deposit credited (USDC decimal string); smaller deposits stay `received`, visible, never credited. */
  SOLANA_MINIMUM_DEPOSIT: z.string().regex(/^[0-9]{1,7}(\.[0-9]{1,6})?$/, 'a USDC amount such as 1.00').default('1.00'),
  /** How often the watcher looks for new signatures (ISO 8601 duration or ms). */
  SOLANA_POLL_INTERVAL: isoDuration('PT5S')
    .default('PT5S'),
  /** Token account (base58) of the platform's treasury wallet for the USDC mint, where sweeps send credited deposits. Unset: no sweeps. */
  SOLANA_TREASURY_TOKEN_ACCOUNT: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a base58 Solana address').optional(),
  /** The fee payer of sweeps: its 32-byte ed25519 seed as 64 hex characters (secret, never logged). Unset: no sweeps. */
  SOLANA_FEE_PAYER_SEED: z.string().regex(/^[0-9a-fA-F]{64}$/, '64 hex characters (32 bytes)').optional(),
  /** Below this balance (lamports) the fee payer is reported low (metric and alert SolanaFeePayerLow). */
  SOLANA_FEE_PAYER_MIN_LAMPORTS: z.coerce.number().int().min(0).default(50_000_000),
  /** How often credited deposits are swept to the treasury (ISO 8601 duration or ms). */
  SOLANA_SWEEP_INTERVAL: isoDuration('PT10M')
    .default('PT10M'),
  /** The sandbox's Solana node (e.g. devnet). With it, sandbox deposit addresses are watched too. Unset: sandbox addresses are shown, not watched. */
  SOLANA_SANDBOX_RPC_URL: z.string().url().optional(),
  /** The USDC mint of the sandbox network (default: Circle's devnet USDC). */
  SOLANA_SANDBOX_USDC_MINT: z
    .string()
    .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a base58 Solana address')
    .default('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'),
  /** Master seed of the sandbox deposit keys (64 hex). Unset: a published sandbox-only seed (src/solana/keys.ts SANDBOX_DEPOSIT_SEED). */
  SOLANA_SANDBOX_DEPOSIT_SEED: z.string().regex(/^[0-9a-fA-F]{64}$/, '64 hex characters (32 bytes)').optional(),
  // --- end USDC on Solana ---
  /** How often the data-retention sweep runs (ISO 8601 duration or ms; docs/operations.md "Data retention"). */
  RETENTION_INTERVAL: isoDuration('PT1H')
    .default('PT1H'),
  WEBHOOK_RETRY_INITIAL: isoDuration('PT5S')
    .default('PT5S'),

  // ---- Live rates (issue #33; docs/rates.md, docs/configuration.md "Live rates") ----
  /**
   * Per currency, its rate sources in order of preference with each one's maximum age:
   * `CUR=source@ISO-duration|source@ISO-duration`, comma-separated. Past its maximum age a source
   * is not used; with none left, the live channels in that currency are paused.
   */
  RATE_ROUTES: z
    .string()
    .default('USD=kraken@PT5M,EUR=ecb@P4D|kraken@PT5M,MXN=banxico@P4D|ecb@P4D,BRL=ecb@P4D,GBP=ecb@P4D,INR=ecb@P4D,AUD=ecb@P4D')
    .refine((v) => ok(() => parseRateRoutes(v)), 'CUR=source@maxAge|source@maxAge, comma-separated (e.g. EUR=ecb@P4D|kraken@PT5M)'),
  /** The ECB's eurofxref-daily.xml. */
  RATE_ECB_URL: z.string().url().default('https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml'),
  /** Kraken's public Ticker endpoint (the pairs are added as `?pair=`). */
  RATE_KRAKEN_URL: z.string().url().default('https://api.kraken.com/0/public/Ticker'),
  /** Banxico SIE: the latest datum of series SF43718 (FIX). */
  RATE_BANXICO_URL: z.string().url().default('https://www.banxico.org.mx/SieAPIRest/service/v1/series/SF43718/datos/oportuno'),
  /** Banxico SIE query token (header Bmx-Token); unset: the source is asked without one. */
  RATE_BANXICO_TOKEN: z.string().min(1).optional(),
  /** How often the refresher asks every source (ISO 8601 duration or ms). */
  RATE_REFRESH_INTERVAL: isoDuration('PT30S').default('PT30S'),
  /** Time limit of one source request. */
  RATE_FETCH_TIMEOUT: isoDuration('PT5S').default('PT5S'),
  /** How long a process answers from its in-memory rates before re-reading the table (in the background). */
  RATE_CACHE_TTL: isoDuration('PT1S').default('PT1S'),
  /** A source rate that moved more than this many basis points from the last accepted one is refused. */
  RATE_MAX_MOVE_BPS: z.coerce.number().int().min(1).max(100000).default(500),
  /** Spread per corridor (channel id) in basis points, `default=` for the others: `default=50,sepa_eur=40`. */
  RATE_SPREAD_BPS: z
    .string()
    .default('default=50,sepa_eur=40,ach_usd=10,spei_mxn=50')
    .refine((v) => ok(() => parseIntMap(v, 5000, 'RATE_SPREAD_BPS')), 'channel=bps pairs, each 0 to 5000'),
  /** Spread per business and corridor, overriding RATE_SPREAD_BPS: `<business id>:<channel>=bps`. */
  RATE_BUSINESS_SPREAD_BPS: z
    .string()
    .default('')
    .refine((v) => ok(() => parseIntMap(v, 5000, 'RATE_BUSINESS_SPREAD_BPS')), 'business:channel=bps pairs, each 0 to 5000'),
  /** Spread of live deposits per deposit currency, basis points, taken as fees.fx_spread. */
  RATE_DEPOSIT_SPREAD_BPS: z
    .string()
    .default('USD=0,EUR=25,MXN=35')
    .refine((v) => ok(() => parseIntMap(v, 5000, 'RATE_DEPOSIT_SPREAD_BPS')), 'CUR=bps pairs, each 0 to 5000'),
  // ---- end of live rates ----
  // --- Notifications: live providers (issue #34; docs/notifications.md; docs/configuration.md "Notification providers") ---
  /** SMTP submission server for claim-link e-mail, `smtp://user:pass@host:587` or `smtps://…:465`. Unset: e-mail goes to NOTIFICATIONS_LIVE_URL if set, else is not configured. */
  NOTIFY_SMTP_URL: z.string().url().optional(),
  /** Pooled SMTP connections kept open (nodemailer pool). */
  NOTIFY_SMTP_POOL_SIZE: z.coerce.number().int().min(1).max(50).default(3),
  /** The From address of claim-link e-mail, e.g. `Payouts <payouts@example.com>`. */
  NOTIFY_EMAIL_FROM: z.string().min(3).optional(),
  /** Domain of the per-message return path `bounce+<message id>@<domain>` and the Message-ID; default the From address's domain. */
  NOTIFY_EMAIL_BOUNCE_DOMAIN: z.string().min(1).optional(),
  /** DKIM signing domain (d=); signing is on when domain, selector and key are all set. */
  NOTIFY_DKIM_DOMAIN: z.string().min(1).optional(),
  /** DKIM selector (s=): the public key is published at `<selector>._domainkey.<domain>`. */
  NOTIFY_DKIM_SELECTOR: z.string().min(1).optional(),
  /** Path of the DKIM private key (PEM, RSA). */
  NOTIFY_DKIM_PRIVATE_KEY_PATH: z.string().min(1).optional(),
  /** Twilio account SID (`AC…`); with TWILIO_AUTH_TOKEN and TWILIO_FROM, SMS go through Twilio's Programmable Messaging API. */
  TWILIO_ACCOUNT_SID: z.string().min(1).optional(),
  /** Twilio auth token: authenticates our API calls and verifies X-Twilio-Signature on Twilio's callbacks. */
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** Sender: an E.164 number or a Messaging Service SID (`MG…`). */
  TWILIO_FROM: z.string().min(1).optional(),
  /** Testing and demos only: the base URL the twilio client calls instead of https://api.twilio.com (a Twilio-shaped double). */
  TWILIO_API_BASE_URL: z.string().url().optional(),
  /** WhatsApp Cloud API: the business phone number id messages are sent from. */
  WHATSAPP_PHONE_NUMBER_ID: z.string().min(1).optional(),
  /** WhatsApp Cloud API: a system-user access token (Bearer). */
  WHATSAPP_ACCESS_TOKEN: z.string().min(1).optional(),
  /** The Meta app secret: verifies X-Hub-Signature-256 on status webhooks. */
  WHATSAPP_APP_SECRET: z.string().min(1).optional(),
  /** The verify token of the webhook subscription handshake (GET hub.verify_token). */
  WHATSAPP_VERIFY_TOKEN: z.string().min(1).optional(),
  /** Graph API base URL (a Cloud-API-shaped double in tests and demos). */
  WHATSAPP_API_BASE_URL: z.string().url().default('https://graph.facebook.com'),
  WHATSAPP_API_VERSION: z.string().regex(/^v\d+\.\d+$/, 'a Graph API version such as v21.0').default('v21.0'),
  /** The approved claim template per language, `<language>:<template name>:<template language code>` comma-separated. */
  WHATSAPP_TEMPLATES: z.string().default('en:claim_link_payout:en_US,es:claim_link_payout:es,pt:claim_link_payout:pt_BR'),
  /** Base URL providers reach our /hooks routes at (status callbacks); default PUBLIC_URL. */
  NOTIFY_CALLBACK_BASE_URL: z.string().url().optional(),
  /** How long one provider call may take before its outcome counts as unknown (ISO 8601 duration or ms). */
  NOTIFY_PROVIDER_TIMEOUT: isoDuration('PT10S').default('PT10S'),
  /** After an unknown WhatsApp outcome, how long to wait for a status webhook naming our reference before sending again (ISO 8601 duration or ms). */
  NOTIFY_WHATSAPP_LOOKUP_GRACE: isoDuration('PT10M').default('PT10M'),
  // --- end of notification providers ---
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
