import { z } from 'zod';
import { parseDuration } from './domain/durations';

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
  PAYOUT_APPROVAL_TIMEOUT: z
    .string()
    .refine((v) => {
      try {
        return parseDuration(v) > 0;
      } catch {
        return false;
      }
    }, 'a positive ISO 8601 duration such as P7D, or milliseconds')
    .default('P7D'),
  WEBHOOK_RETRY_INITIAL: z
    .string()
    .refine((v) => {
      try {
        return parseDuration(v) > 0;
      } catch {
        return false;
      }
    }, 'a positive ISO 8601 duration such as PT5S, or milliseconds')
    .default('PT5S'),
});

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
