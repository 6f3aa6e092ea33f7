/** Fixed-window rate-limit counters. */
export interface RateLimitCountersTable {
  /** `<scope>:<rule>`. */
  key: string;
  /** Aligned to the window length since the Unix epoch. */
  window_start: Date;
  /** Refused requests included. */
  count: number;
  /** Rows past it are pruned. */
  expires_at: Date;
}

export interface RateLimitTables {
  rate_limit_counters: RateLimitCountersTable;
}
