/**
 * The treasury's Prometheus metric (docs/operations.md "Reconciliation break"), in the process's
 * registry: open breaks of the settlement accounts' reconciliation, set at scrape time from the
 * database (src/core/treasury/report.ts refreshTreasuryGauges), so every process reports the same.
 */
import { Gauge } from 'prom-client';
import { METRIC_LABELS, metricsRegistry } from '../metrics/registry';

/** Open reconciliation breaks by rail (the connection of a settlement account: a rail module with a `statements` part) and kind. */
export const treasuryOpenBreaks = new Gauge({
  name: 'treasury_open_breaks',
  help: 'Open reconciliation breaks of the settlement accounts, by rail (the account) and kind (bank_only, books_only, amount_mismatch, balance_drift); counted at scrape time.',
  labelNames: METRIC_LABELS.treasury_open_breaks,
  registers: [metricsRegistry],
});
