/** PostgreSQL-backed fixed-window rate limits (see fixed-window.ts). */
export { bindingRateLimit, hitRateLimits, pruneRateLimitCounters, type RateLimitRule, type RateLimitState } from './fixed-window';
