/** Fixed-window rate-limit counters (migration 0020_rate_limits). */
export interface RateLimitCountersTable {
  /** `<scope>:<rule>`, e.g. `B:biz_…:sandbox:post_disbursements`. */
  key: string;
  /** Start of the fixed window (aligned to the window length since the Unix epoch). */
  window_start: Date;
  /** Requests counted in this window (refused ones included). */
  count: number;
  /** End of the window; rows past it are pruned. */
  expires_at: Date;
}

export interface RateLimitTables {
  rate_limit_counters: RateLimitCountersTable;
}
