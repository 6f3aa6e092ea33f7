import type { RateLimitRule } from '../../core/rate-limit';

/**
 * Surface B's rate limits, exactly the spec's table ("Limits", rate limits, Surface B paths), per
 * organisation (business and environment), fixed one-minute windows shared by every API process.
 */
export const SURFACE_B_RATE_LIMITS = {
  /** `POST /disbursements`: 100 requests per minute. */
  createDisbursement: { name: 'post_disbursements', limit: 100, windowSeconds: 60 },
  /** `POST /disbursements/batch`: 10 requests per minute. */
  createBatch: { name: 'post_disbursements_batch', limit: 10, windowSeconds: 60 },
  /** Every GET endpoint together: 300 requests per minute. */
  reads: { name: 'get', limit: 300, windowSeconds: 60 },
  /** All endpoints together: 1,000 requests per minute per organisation. */
  all: { name: 'all', limit: 1000, windowSeconds: 60 },
} as const satisfies Record<string, RateLimitRule>;

/**
 * The limits a Surface B request counts against, most specific first. `path` is relative to the
 * base address (`/disbursements/batch`), without a trailing slash.
 */
export function surfaceBRateLimitRules(method: string, path: string): RateLimitRule[] {
  const L = SURFACE_B_RATE_LIMITS;
  const p = path.length > 1 ? path.replace(/\/+$/, '') : path;
  if (method === 'POST' && p === '/disbursements') return [L.createDisbursement, L.all];
  if (method === 'POST' && p === '/disbursements/batch') return [L.createBatch, L.all];
  if (method === 'GET' || method === 'HEAD') return [L.reads, L.all];
  return [L.all];
}
