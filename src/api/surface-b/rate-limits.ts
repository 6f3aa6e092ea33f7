import type { RateLimitRule } from '../../core/rate-limit';

/** Surface B's rate limits: the spec's table ("Limits"), per organisation, one-minute windows. */
export const SURFACE_B_RATE_LIMITS = {
  createDisbursement: { name: 'post_disbursements', limit: 100, windowSeconds: 60 },
  createBatch: { name: 'post_disbursements_batch', limit: 10, windowSeconds: 60 },
  reads: { name: 'get', limit: 300, windowSeconds: 60 },
  all: { name: 'all', limit: 1000, windowSeconds: 60 },
} as const satisfies Record<string, RateLimitRule>;

/** The limits a request counts against, most specific first; `path` is relative to the base address. */
export function surfaceBRateLimitRules(method: string, path: string): RateLimitRule[] {
  const L = SURFACE_B_RATE_LIMITS;
  const p = path.length > 1 ? path.replace(/\/+$/, '') : path;
  if (method === 'POST' && p === '/disbursements') return [L.createDisbursement, L.all];
  if (method === 'POST' && p === '/disbursements/batch') return [L.createBatch, L.all];
  if (method === 'GET' || method === 'HEAD') return [L.reads, L.all];
  return [L.all];
}
