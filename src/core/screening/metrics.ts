/** Screening metrics (docs/screening.md "Metrics"; docs/operations.md "Metrics"); label values are fixed sets (outcomes, list ids). */
import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from '../metrics/registry';

export const SCREENING_METRIC_LABELS = {
  screenings_total: ['outcome'],
  screening_list_age_seconds: ['list'],
  screening_list_refresh_failures_total: ['list'],
  screening_cases_total: ['kind', 'decision'],
  screening_review_queue_oldest_seconds: [],
  screening_available: ['environment'],
  screening_rescreened_recipients_total: ['outcome'],
} as const;

let watched: (() => { list: string; ageSeconds: number | null }[]) | undefined;

/** Points the list-age gauge at a service's status (the last call wins). */
export function watchScreeningLists(status: NonNullable<typeof watched>): void {
  watched = status;
}

export const screeningsTotal = new Counter({
  name: 'screenings_total',
  help: 'Screenings by outcome (clear, potential_match, confirmed_match, unavailable).',
  labelNames: SCREENING_METRIC_LABELS.screenings_total,
  registers: [metricsRegistry],
});

export const screeningListAge = new Gauge({
  name: 'screening_list_age_seconds',
  help: 'Seconds since each configured sanctions list was last fetched successfully (absent: never loaded).',
  labelNames: SCREENING_METRIC_LABELS.screening_list_age_seconds,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const l of watched?.() ?? []) if (l.ageSeconds !== null) this.set({ list: l.list }, l.ageSeconds);
  },
});

export const screeningListRefreshFailures = new Counter({
  name: 'screening_list_refresh_failures_total',
  help: 'Failed fetches or parses of a sanctions list (the last good version stayed current).',
  labelNames: SCREENING_METRIC_LABELS.screening_list_refresh_failures_total,
  registers: [metricsRegistry],
});

/** Cases by kind (`sanctions`, `name_mismatch`) and decision (`opened`, `released`, `rejected`). */
export const screeningCasesTotal = new Counter({
  name: 'screening_cases_total',
  help: 'Screening cases by kind (sanctions, name_mismatch) and decision (opened, released, rejected).',
  labelNames: SCREENING_METRIC_LABELS.screening_cases_total,
  registers: [metricsRegistry],
});

/** Set at scrape time by src/core/screening/cases.ts `refreshScreeningQueueGauge`. */
export const screeningReviewQueueOldest = new Gauge({
  name: 'screening_review_queue_oldest_seconds',
  help: 'Age in seconds of the oldest screening case not yet decided (open or in review); 0 when the queue is empty.',
  registers: [metricsRegistry],
});

export const screeningAvailable = new Gauge({
  name: 'screening_available',
  help: 'Whether sanctions screening is available (1) or fails closed (0), per environment; set by the refresh loop.',
  labelNames: SCREENING_METRIC_LABELS.screening_available,
  registers: [metricsRegistry],
});

export const screeningRescreenedRecipients = new Counter({
  name: 'screening_rescreened_recipients_total',
  help: 'Saved recipients screened again after a sanctions list changed, by outcome.',
  labelNames: SCREENING_METRIC_LABELS.screening_rescreened_recipients_total,
  registers: [metricsRegistry],
});
