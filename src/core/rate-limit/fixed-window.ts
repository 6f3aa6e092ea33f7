/**
 * A PostgreSQL-backed fixed-window rate limiter shared by every API process (spec "Limits"; why not
 * a library: docs/surface-b.md). One atomic statement counts a request against all its limits;
 * windows are epoch-aligned; refused requests count too; keys are written sorted (no deadlock).
 */
import { sql } from 'kysely';
import type { DbOrTx } from '../../db/schema';

/** One limit: at most `limit` requests per `windowSeconds` (fixed window). `name` is part of the counter key. */
export interface RateLimitRule {
  name: string;
  limit: number;
  windowSeconds: number;
}

export interface RateLimitState {
  rule: RateLimitRule;
  /** This one included. */
  count: number;
  remaining: number;
  /** Unix seconds (X-RateLimit-Reset). */
  resetAt: number;
  exceeded: boolean;
}

/** Counts one request against every rule for `scope` (e.g. `B:biz_…:sandbox`); states in rule order. */
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

/** What X-RateLimit-* report: the first exceeded rule, else the fewest remaining (ties: the earlier). */
export function bindingRateLimit(states: readonly RateLimitState[]): RateLimitState | null {
  const exceeded = states.find((s) => s.exceeded);
  if (exceeded) return exceeded;
  let best: RateLimitState | null = null;
  for (const s of states) if (!best || s.remaining < best.remaining) best = s;
  return best;
}

export async function pruneRateLimitCounters(db: DbOrTx, now: Date): Promise<number> {
  const res = await db.deleteFrom('rate_limit_counters').where('expires_at', '<', now).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}
