/**
 * A PostgreSQL-backed fixed-window rate limiter, shared by every API process (spec "Limits",
 * Surface B rate limits; usable by any surface).
 *
 * Why our own counter and not rate-limiter-flexible: one statement (`INSERT ... VALUES (k1), (k2)
 * ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1 RETURNING key, count`) counts a
 * request against all of its limits in one round trip and is atomic under any concurrency; it runs
 * on the service's own Kysely handle, so it works the same on PostgreSQL and on embedded PGlite
 * (rate-limiter-flexible's Postgres store wants its own `pg` client and a table of its own making,
 * and one call per limit). Windows are aligned to the epoch (`floor(now / window)`), so every process
 * agrees on them; the clock is the API process's clock.
 *
 * Every request is counted, refused ones included (a client that keeps hammering does not get
 * extra headroom); keys are written in sorted order so concurrent multi-row upserts never deadlock.
 */
import { sql } from 'kysely';
import type { DbOrTx } from '../../db/schema';

/** One limit: at most `limit` requests per `windowSeconds` (fixed window). `name` is part of the counter key. */
export interface RateLimitRule {
  name: string;
  limit: number;
  windowSeconds: number;
}

/** A rule's state after counting one request. */
export interface RateLimitState {
  rule: RateLimitRule;
  /** Requests counted in the current window, this one included. */
  count: number;
  /** `max(0, limit - count)`. */
  remaining: number;
  /** End of the current window, Unix seconds (the X-RateLimit-Reset value). */
  resetAt: number;
  /** Whether this request is over the limit (count > limit). */
  exceeded: boolean;
}

/**
 * Counts one request against every rule for `scope` (e.g. `B:biz_…:sandbox`) and returns each
 * rule's state, in the order given. One SQL statement. Throws whatever the database throws.
 */
export async function hitRateLimits(db: DbOrTx, scope: string, rules: readonly RateLimitRule[], now: Date): Promise<RateLimitState[]> {
  if (rules.length === 0) return [];
  const rows = rules.map((rule) => {
    const ms = rule.windowSeconds * 1000;
    const start = Math.floor(now.getTime() / ms) * ms;
    return { rule, key: `${scope}:${rule.name}`, window_start: new Date(start), expires_at: new Date(start + ms) };
  });
  const values = [...rows]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => ({ key: r.key, window_start: r.window_start, count: 1, expires_at: r.expires_at }));
  const counted = await db
    .insertInto('rate_limit_counters')
    .values(values)
    .onConflict((oc) => oc.columns(['key', 'window_start']).doUpdateSet({ count: sql<number>`rate_limit_counters.count + 1` }))
    .returning(['key', 'count'])
    .execute();
  const byKey = new Map(counted.map((r) => [r.key, Number(r.count)]));
  return rows.map(({ rule, key, expires_at }) => {
    const count = byKey.get(key) ?? 1;
    return {
      rule,
      count,
      remaining: Math.max(0, rule.limit - count),
      resetAt: Math.floor(expires_at.getTime() / 1000),
      exceeded: count > rule.limit,
    };
  });
}

/**
 * The state the X-RateLimit-* headers report: the first exceeded rule if any, else the rule with
 * the fewest requests remaining (ties: the earlier rule, i.e. the more specific one). Null for none.
 */
export function bindingRateLimit(states: readonly RateLimitState[]): RateLimitState | null {
  const exceeded = states.find((s) => s.exceeded);
  if (exceeded) return exceeded;
  let best: RateLimitState | null = null;
  for (const s of states) if (!best || s.remaining < best.remaining) best = s;
  return best;
}

/** Deletes counters of windows that ended before `now` (housekeeping; returns how many). */
export async function pruneRateLimitCounters(db: DbOrTx, now: Date): Promise<number> {
  const res = await db.deleteFrom('rate_limit_counters').where('expires_at', '<', now).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}
