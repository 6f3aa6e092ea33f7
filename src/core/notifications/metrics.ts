/** Notification metrics (docs/notifications.md "Metrics"). Labels never carry a destination. */
import { Counter } from 'prom-client';
import { metricsRegistry } from '../metrics/registry';

/** Provider callbacks by provider and outcome. */
export const notificationCallbacks = new Counter({
  name: 'notification_callbacks_total',
  help: 'Provider callbacks received on /hooks, by provider and outcome (applied, stale, unknown_message, replay, bad_signature, ignored, opt_out, opt_in).',
  labelNames: ['provider', 'outcome'],
  registers: [metricsRegistry],
});

/** Provider calls by provider, channel and outcome. */
export const notificationSends = new Counter({
  name: 'notification_sends_total',
  help: 'Notification provider calls and lookups, by provider, channel and outcome (sent, found, failed, retry, unknown, fallback, opted_out).',
  labelNames: ['provider', 'channel', 'outcome'],
  registers: [metricsRegistry],
});
