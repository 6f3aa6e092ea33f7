import type { Context, MiddlewareHandler } from 'hono';
import { bindingRateLimit, hitRateLimits, pruneRateLimitCounters, type RateLimitRule, type RateLimitState } from '../../core/rate-limit';
import { ApiError } from '../../domain/errors';
import type { AppEnv } from '../types';
import { setResponseHeader } from './response-headers';

export interface RateLimitOptions {
  /** The limits this request counts against (most specific first); an empty list skips limiting. */
  rules: (c: Context<AppEnv>) => readonly RateLimitRule[];
  /** The counter scope; default `<surface>:<businessId>:<environment>`; null skips limiting. */
  scope?: (c: Context<AppEnv>) => string | null;
  /** Default 429 `rate_limited`. */
  exceeded?: (c: Context<AppEnv>, state: RateLimitState) => ApiError;
}

const PRUNE_EVERY_MS = 60_000;

/** Default 429: `rate_limited`, with the limit, window and reset in `details`. */
export function rateLimitExceeded(state: RateLimitState, now: Date): ApiError {
  const retryAfter = Math.max(1, state.resetAt - Math.floor(now.getTime() / 1000));
  return new ApiError(
    429,
    'rate_limited',
    `Rate limit exceeded: at most ${state.rule.limit} requests per ${state.rule.windowSeconds} s (${state.rule.name}); retry after ${retryAfter} s`,
    null,
    { limit: state.rule.limit, windowSeconds: state.rule.windowSeconds, rule: state.rule.name, resetAt: state.resetAt, retryAfterSeconds: retryAfter },
  );
}

/**
 * Rate-limit middleware over the PostgreSQL fixed-window counters (src/core/rate-limit): sets
 * `X-RateLimit-Limit`, `-Remaining`, `-Reset` (Unix seconds) from the binding rule on every
 * response; over a limit throws the surface's 429 with `Retry-After`.
 */
export function rateLimit(opts: RateLimitOptions): MiddlewareHandler<AppEnv> {
  let lastPrune = 0;
  return async (c, next) => {
    const rules = opts.rules(c);
    const scope = opts.scope ? opts.scope(c) : defaultScope(c);
    if (!rules.length || !scope) return next();
    const core = c.get('core');
    const now = core.now();
    const states = await hitRateLimits(core.db, scope, rules, now);
    const binding = bindingRateLimit(states);
    if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = Date.now();
      pruneRateLimitCounters(core.db, now).catch((err) => core.log.warn({ err }, 'rate-limit prune failed'));
    }
    if (!binding) return next();
    const set = () => {
      c.header('X-RateLimit-Limit', String(binding.rule.limit));
      c.header('X-RateLimit-Remaining', String(binding.remaining));
      c.header('X-RateLimit-Reset', String(binding.resetAt));
    };
    set();
    if (binding.exceeded) {
      const err = opts.exceeded ? opts.exceeded(c, binding) : rateLimitExceeded(binding, now);
      c.header('Retry-After', String(Math.max(1, binding.resetAt - Math.floor(now.getTime() / 1000))));
      throw err;
    }
    await next();
    setResponseHeader(c, 'X-RateLimit-Limit', String(binding.rule.limit));
    setResponseHeader(c, 'X-RateLimit-Remaining', String(binding.remaining));
    setResponseHeader(c, 'X-RateLimit-Reset', String(binding.resetAt));
  };
}

function defaultScope(c: Context<AppEnv>): string | null {
  const caller = c.get('caller');
  if (!caller) return null;
  return `${c.get('surface')}:${caller.businessId}:${caller.environment}`;
}
