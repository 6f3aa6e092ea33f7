import type { Context, MiddlewareHandler } from 'hono';
import type { RateLimitRule } from '../../core/rate-limit';
import type { AppEnv } from '../types';
import { rateLimit } from './rate-limit';

/**
 * Per-key rate limits of Surfaces A and C (docs/security.md), on the
 * same PostgreSQL fixed-window limiter, headers and 429 as Surface B (src/api/middleware/rate-limit.ts).
 *
 * Numbers (Stripe's anchor): each API key may make **100 requests per second on live** and **25 per
 * second in the sandbox** (`RATE_LIMIT_LIVE_PER_SECOND`, `RATE_LIMIT_SANDBOX_PER_SECOND`; 0 turns
 * the limit off). Fixed one-second windows aligned to the epoch, shared by every API process; every
 * request of the key counts, refused ones included. Over the limit: 429 `rate_limited` in the
 * surface's error shape with `Retry-After`; every counted response carries `X-RateLimit-Limit`,
 * `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix seconds). Counted per key, not per business,
 * so one integration's burst does not starve another key of the same business. Surface B keeps its
 * own per-organisation table (src/api/surface-b/rate-limits.ts) and is skipped here.
 */

/** The per-key rule of a request's environment, or none (limit off, or Surface B). */
export function keyRateLimitRules(c: Context<AppEnv>): RateLimitRule[] {
  if (c.get('surface') === 'B') return [];
  const config = c.get('core').config;
  const live = c.get('environment') === 'live';
  const limit = live ? config.RATE_LIMIT_LIVE_PER_SECOND : config.RATE_LIMIT_SANDBOX_PER_SECOND;
  if (!limit) return [];
  return [{ name: live ? 'key_live' : 'key_sandbox', limit, windowSeconds: 1 }];
}

/** The middleware; mount after authentication (it counts per `caller.keyId`). */
export const keyRateLimit: MiddlewareHandler<AppEnv> = rateLimit({
  rules: keyRateLimitRules,
  scope: (c) => {
    const caller = c.get('caller');
    return caller ? `${c.get('surface')}:key:${caller.keyId}` : null;
  },
});
