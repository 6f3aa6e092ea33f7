import type { Context, MiddlewareHandler } from 'hono';
import type { RateLimitRule } from '../../core/rate-limit';
import type { AppEnv } from '../types';
import { rateLimit } from './rate-limit';

/**
 * Per-key rate limits of Surfaces A and C (docs/security.md "Rate limits on Surfaces A and C"):
 * one-second windows, per key so one integration's burst does not starve another key; Surface B
 * keeps its own table (src/api/surface-b/rate-limits.ts).
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
