/** Fixed-window rate-limit counters. */
export interface RateLimitCountersTable {
  key: string;
  /** Aligned to the window length since the Unix epoch. */
  window_start: Date;
  count: number;
  expires_at: Date;
}

export interface RateLimitTables {
  rate_limit_counters: RateLimitCountersTable;
}
