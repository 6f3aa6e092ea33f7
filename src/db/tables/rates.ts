/** The latest answer of one rate source for one pair: 1 `base` buys `bid`..`ask` `quote` (decimal strings). */
export interface FxRateObservationsTable {
  source: string;
  base: string;
  quote: string;
  bid: string;
  ask: string;
  as_of: Date;
  fetched_at: Date;
}

/** The rate a live quote, payout or deposit used (null in the sandbox; docs/rates.md). */
export interface LiveRateColumns {
  rate_source: string | null;
  rate_as_of: Date | null;
  rate_usable_until: Date | null;
  /** Decimal string before the spread, at most 10 decimals. */
  reference_rate: string | null;
  /** Basis points. */
  fx_spread_bps: number | null;
}

export interface RateTables {
  fx_rate_observations: FxRateObservationsTable;
}
