/**
 * Live rates (migration 0062_live_rates; docs/rates.md). `fx_rate_observations` is written only by
 * src/core/rates/store.ts.
 */

/** The latest accepted answer of one rate source for one pair: 1 `base` buys `bid`..`ask` `quote` (decimal strings). */
export interface FxRateObservationsTable {
  source: string;
  base: string;
  quote: string;
  bid: string;
  ask: string;
  /** The source's own time of the rate (or our time of receipt when it gives none). */
  as_of: Date;
  fetched_at: Date;
}

/** The rate a live quote, payout or deposit used (null in the sandbox). */
export interface LiveRateColumns {
  /** Source id(s) of the rate's legs, e.g. `ecb+kraken`. */
  rate_source: string | null;
  /** The oldest leg's as-of time. */
  rate_as_of: Date | null;
  /** When the rate passed its maximum age (a conversion after this would have used a stale rate). */
  rate_usable_until: Date | null;
  /** Reference rate before the spread (decimal string, 10 decimals at most). */
  reference_rate: string | null;
  /** Spread applied, basis points. */
  fx_spread_bps: number | null;
}

export interface RateTables {
  fx_rate_observations: FxRateObservationsTable;
}
