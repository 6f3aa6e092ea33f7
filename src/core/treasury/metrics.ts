/** Open reconciliation breaks, set at scrape time (docs/operations.md "Reconciliation break"). */
import { Gauge } from 'prom-client';
import { METRIC_LABELS, metricsRegistry } from '../metrics/registry';

export const treasuryOpenBreaks = new Gauge({
  name: 'treasury_open_breaks',
  help: 'Open reconciliation breaks of the settlement accounts, by rail (the account) and kind (bank_only, books_only, amount_mismatch, balance_drift); counted at scrape time.',
  labelNames: METRIC_LABELS.treasury_open_breaks,
  registers: [metricsRegistry],
});
