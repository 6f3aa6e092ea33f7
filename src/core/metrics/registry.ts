import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics (docs/operations.md lists them). No label ever carries an id or
 * an amount; each process counts what it did itself, so dashboards sum over instances.
 */
export const metricsRegistry = new Registry();

/**
 * Node.js process metrics (CPU, memory, event loop lag, GC): process_*, nodejs_*. The event loop
 * lag histogram samples every EVENT_LOOP_SAMPLE_MS (prom-client's default, 10 ms, wakes an idle
 * process 100 times a second; a lag of any size is still seen, by fewer samples).
 */
export const EVENT_LOOP_SAMPLE_MS = 100;
collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });

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
  card_dispute_shortfalls_total: ['environment'],
} as const;

/** HTTP request duration in seconds; `route` is the matched template or `unmatched`, never the raw path. */
export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration in seconds, by method, route template (never the raw path) and status code.',
  labelNames: METRIC_LABELS.http_request_duration_seconds,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const payoutsCreated = new Counter({
  name: 'payouts_created_total',
  help: 'Payouts accepted (entered submitted: payout.submitted written to the outbox), by channel and environment.',
  labelNames: METRIC_LABELS.payouts_created_total,
  registers: [metricsRegistry],
});

/** Payouts that reached a final status; a refunded payout is counted again as `refunded`. */
export const payoutsFinished = new Counter({
  name: 'payouts_finished_total',
  help: 'Payouts that reached a final status (succeeded, failed, canceled; refunded counts a later refund of a succeeded payout), by channel, status and environment.',
  labelNames: METRIC_LABELS.payouts_finished_total,
  registers: [metricsRegistry],
});

export type WebhookAttemptMetricOutcome = 'succeeded' | 'http_error' | 'unreachable' | 'endpoint_deleted';

export const webhookDeliveryAttempts = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome: succeeded (2xx), http_error (any other status), unreachable (network error or no answer within 10 s), endpoint_deleted.',
  labelNames: METRIC_LABELS.webhook_delivery_attempts_total,
  registers: [metricsRegistry],
});

/** Disbursement items launched and not final (`pending`, `processing`); set at scrape time. */
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

/** Counts a payout event inserted into the outbox (once per event, so retries count once). */
export function recordPayoutEvent(type: string, channel: unknown, environment: string): void {
  const ch = typeof channel === 'string' && channel.length <= 64 ? channel : 'unknown';
  if (type === 'payout.submitted') payoutsCreated.inc({ channel: ch, environment });
  else if (PAYOUT_FINAL_EVENTS[type]) payoutsFinished.inc({ channel: ch, status: PAYOUT_FINAL_EVENTS[type], environment });
}

export function recordWebhookAttempt(outcome: WebhookAttemptMetricOutcome): void {
  webhookDeliveryAttempts.inc({ outcome });
}

/** Files exchanged with a bank by rail, direction and outcome (`sent`, `received`, `quarantined`: alert on any). */
export const railFiles = new Counter({
  name: 'rail_files_total',
  help: 'Files exchanged with a bank, by rail, direction (outbound, inbound) and outcome (sent, received, quarantined).',
  labelNames: METRIC_LABELS.rail_files_total,
  registers: [metricsRegistry],
});

export const railUnmatchedItems = new Counter({
  name: 'rail_unmatched_items_total',
  help: 'Statuses read from bank files that matched no payout or deposit (kept as unmatched items for operators).',
  labelNames: METRIC_LABELS.rail_unmatched_items_total,
  registers: [metricsRegistry],
});

/** Returns read from bank files, by rail, reason code and `late`. */
export const railReturns = new Counter({
  name: 'rail_returns_total',
  help: "Returns read from bank files, by rail, the rail's reason code and whether it came after the usual return time (late).",
  labelNames: METRIC_LABELS.rail_returns_total,
  registers: [metricsRegistry],
});

export const payoutsRailOverdue = new Counter({
  name: 'payouts_rail_overdue_total',
  help: "Times a live payout's rail had not answered by the channel's arrival.max (the payout keeps waiting; alert on any increase).",
  labelNames: METRIC_LABELS.payouts_rail_overdue_total,
  registers: [metricsRegistry],
});

export const railOldestWaitingPayout = new Gauge({
  name: 'rail_oldest_waiting_payout_seconds',
  help: 'Age in seconds of the oldest live payout handed to a bank rail and not yet answered (0 when none); counted at scrape time.',
  labelNames: METRIC_LABELS.rail_oldest_waiting_payout_seconds,
  registers: [metricsRegistry],
});

/** Rows waiting in the `workflow_starts` and `events` outboxes and the oldest one's age in seconds (docs/operations.md "Outbox backlog"). */
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

export const webhookDeliveriesFailed = new Counter({
  name: 'webhook_deliveries_failed_total',
  help: 'Webhook deliveries that ended failed (their retry window spent, or their endpoint deleted).',
  labelNames: METRIC_LABELS.webhook_deliveries_failed_total,
  registers: [metricsRegistry],
});

/** Card disputes whose withdrawal the balance and reserve did not cover (payouts blocked: alert on any; docs/operations.md "Dispute runbook"). */
export const cardDisputeShortfalls = new Counter({
  name: 'card_dispute_shortfalls_total',
  help: 'Card disputes whose withdrawal the available balance and the reserve did not cover; the business\'s new payouts are blocked until recovered.',
  labelNames: METRIC_LABELS.card_dispute_shortfalls_total,
  registers: [metricsRegistry],
});
