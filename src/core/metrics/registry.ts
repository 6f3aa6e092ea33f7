import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics (prom-client), served by `GET /metrics` on the API and on the
 * worker's metrics port (docs/operations.md lists them with the alerts built on them).
 *
 * Label rule: every label has a small, fixed set of values (route templates, channel ids, statuses,
 * outcomes, environments). No label ever carries an id (payout, business, key, request, event) or
 * an amount: those belong in logs and the Temporal UI, not in a time series.
 *
 * One registry per process; every process counts what it did itself (the API counts the payouts it
 * accepted, the worker the ones it finished), so a dashboard sums over instances.
 */
export const metricsRegistry = new Registry();

/**
 * Node.js process metrics (CPU, memory, event loop lag, GC): process_*, nodejs_*. The event loop
 * lag histogram samples every EVENT_LOOP_SAMPLE_MS (prom-client's default, 10 ms, wakes an idle
 * process 100 times a second; a lag of any size is still seen, by fewer samples).
 */
export const EVENT_LOOP_SAMPLE_MS = 100;
collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });

/** Label names of each metric: what tests assert and docs/operations.md documents. */
export const METRIC_LABELS = {
  http_request_duration_seconds: ['method', 'route', 'status'],
  payouts_created_total: ['channel', 'environment'],
  payouts_finished_total: ['channel', 'status', 'environment'],
  webhook_delivery_attempts_total: ['outcome'],
  disbursement_items_in_flight: ['status', 'environment'],
  rail_files_total: ['rail', 'direction', 'outcome'],
  rail_unmatched_items_total: ['rail'],
  rail_returns_total: ['rail', 'code', 'late'],
  payouts_rail_overdue_total: ['rail'],
  rail_oldest_waiting_payout_seconds: ['rail'],
  outbox_backlog: ['outbox'],
  outbox_oldest_seconds: ['outbox'],
  webhook_deliveries_failed_total: [],
  treasury_open_breaks: ['rail', 'kind'],
} as const;

/**
 * HTTP request duration in seconds, by method, route template (Hono's matched route such as
 * `/sandbox/v1/payouts/:id`, or `unmatched`; never the raw path) and status code.
 */
export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration in seconds, by method, route template (never the raw path) and status code.',
  labelNames: METRIC_LABELS.http_request_duration_seconds,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** Payouts accepted (entered `submitted`, event payout.submitted), by channel and environment. */
export const payoutsCreated = new Counter({
  name: 'payouts_created_total',
  help: 'Payouts accepted (entered submitted: payout.submitted written to the outbox), by channel and environment.',
  labelNames: METRIC_LABELS.payouts_created_total,
  registers: [metricsRegistry],
});

/**
 * Payouts that reached a final status, by channel, status (`succeeded`, `failed`, `canceled`) and
 * environment. `refunded` is counted too when a succeeded payout is later refunded by the rail, so
 * such a payout appears twice (succeeded, then refunded).
 */
export const payoutsFinished = new Counter({
  name: 'payouts_finished_total',
  help: 'Payouts that reached a final status (succeeded, failed, canceled; refunded counts a later refund of a succeeded payout), by channel, status and environment.',
  labelNames: METRIC_LABELS.payouts_finished_total,
  registers: [metricsRegistry],
});

/** Outcome of one webhook delivery attempt (see {@link WebhookAttemptMetricOutcome}). */
export type WebhookAttemptMetricOutcome = 'succeeded' | 'http_error' | 'unreachable' | 'endpoint_deleted';

/** Webhook delivery attempts (one HTTP POST to an endpoint, or giving up on a deleted endpoint), by outcome. */
export const webhookDeliveryAttempts = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome: succeeded (2xx), http_error (any other status), unreachable (network error or no answer within 10 s), endpoint_deleted.',
  labelNames: METRIC_LABELS.webhook_delivery_attempts_total,
  registers: [metricsRegistry],
});

/**
 * Disbursement items launched and not final, by visible item status (`pending`: no payout yet;
 * `processing`: its payout is in flight) and environment. Set at scrape time from one SQL count
 * ({@link ./scrape}).
 */
export const disbursementItemsInFlight = new Gauge({
  name: 'disbursement_items_in_flight',
  help: 'Disbursement items launched and not yet final, by item status (pending: no payout yet; processing: payout in flight) and environment; counted in the database at scrape time.',
  labelNames: METRIC_LABELS.disbursement_items_in_flight,
  registers: [metricsRegistry],
});

const PAYOUT_FINAL_EVENTS: Record<string, string> = {
  'payout.succeeded': 'succeeded',
  'payout.failed': 'failed',
  'payout.canceled': 'canceled',
  'payout.refunded': 'refunded',
};

/**
 * Counts a payout event just written to the outbox (src/core/events.ts calls this once per event
 * actually inserted, so a retried activity counts once): `payout.submitted` -> created, a final
 * status -> finished. Other events are ignored. `channel` is the payout's channel id.
 */
export function recordPayoutEvent(type: string, channel: unknown, environment: string): void {
  const ch = typeof channel === 'string' && channel.length <= 64 ? channel : 'unknown';
  if (type === 'payout.submitted') payoutsCreated.inc({ channel: ch, environment });
  else if (PAYOUT_FINAL_EVENTS[type]) payoutsFinished.inc({ channel: ch, status: PAYOUT_FINAL_EVENTS[type], environment });
}

/** Counts one webhook delivery attempt by its outcome. */
export function recordWebhookAttempt(outcome: WebhookAttemptMetricOutcome): void {
  webhookDeliveryAttempts.inc({ outcome });
}

/**
 * Files exchanged with a bank (docs/rails.md "For operators"), by rail, direction (`outbound`,
 * `inbound`) and outcome: `sent` (uploaded), `received` (taken from the bank's outbox and applied),
 * `quarantined` (did not parse; alert on any increase).
 */
export const railFiles = new Counter({
  name: 'rail_files_total',
  help: 'Files exchanged with a bank, by rail, direction (outbound, inbound) and outcome (sent, received, quarantined).',
  labelNames: METRIC_LABELS.rail_files_total,
  registers: [metricsRegistry],
});

/** Statuses read from bank files that matched no payout or deposit (kept for operators; `npm run admin -- rail unmatched`). */
export const railUnmatchedItems = new Counter({
  name: 'rail_unmatched_items_total',
  help: 'Statuses read from bank files that matched no payout or deposit (kept as unmatched items for operators).',
  labelNames: METRIC_LABELS.rail_unmatched_items_total,
  registers: [metricsRegistry],
});

/**
 * Returns read from bank files, by rail, the rail's reason code (`R03`, `AC04`) and whether it came
 * after the usual return time (`late`: `true`/`false`; docs/rails.md "ACH").
 */
export const railReturns = new Counter({
  name: 'rail_returns_total',
  help: "Returns read from bank files, by rail, the rail's reason code and whether it came after the usual return time (late).",
  labelNames: METRIC_LABELS.rail_returns_total,
  registers: [metricsRegistry],
});

/** Live payouts whose rail had not answered by the channel's arrival.max (the operator alert; the payout keeps waiting). */
export const payoutsRailOverdue = new Counter({
  name: 'payouts_rail_overdue_total',
  help: "Times a live payout's rail had not answered by the channel's arrival.max (the payout keeps waiting; alert on any increase).",
  labelNames: METRIC_LABELS.payouts_rail_overdue_total,
  registers: [metricsRegistry],
});

/** Age in seconds of the oldest live payout still waiting for its bank (set at scrape time; 0 when none). */
export const railOldestWaitingPayout = new Gauge({
  name: 'rail_oldest_waiting_payout_seconds',
  help: 'Age in seconds of the oldest live payout handed to a bank rail and not yet answered (0 when none); counted at scrape time.',
  labelNames: METRIC_LABELS.rail_oldest_waiting_payout_seconds,
  registers: [metricsRegistry],
});

/**
 * The outboxes the money-safety argument rests on (docs/operations.md "Outbox backlog"), set at
 * scrape time: `workflow_starts` (recorded starts not yet started) and `events` (events not yet
 * dispatched to endpoints): how many rows wait, and the age of the oldest in seconds (0 when none).
 */
export const outboxBacklog = new Gauge({
  name: 'outbox_backlog',
  help: 'Rows waiting in an outbox, by outbox (workflow_starts: recorded starts not yet started; events: events not yet dispatched); counted at scrape time.',
  labelNames: METRIC_LABELS.outbox_backlog,
  registers: [metricsRegistry],
});
export const outboxOldestSeconds = new Gauge({
  name: 'outbox_oldest_seconds',
  help: 'Age in seconds of the oldest row waiting in an outbox (0 when none), by outbox; counted at scrape time.',
  labelNames: METRIC_LABELS.outbox_oldest_seconds,
  registers: [metricsRegistry],
});

/** Webhook deliveries given up (`failed`: retry window spent, or endpoint deleted), counted once each by the process that gave up. */
export const webhookDeliveriesFailed = new Counter({
  name: 'webhook_deliveries_failed_total',
  help: 'Webhook deliveries that ended failed (their retry window spent, or their endpoint deleted).',
  labelNames: METRIC_LABELS.webhook_deliveries_failed_total,
  registers: [metricsRegistry],
});
