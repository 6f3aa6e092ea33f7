/**
 * The configuration of the payout partner rail (the Wise Platform API; docs/rails.md "Payout
 * partner"), read from the process configuration (src/config.ts, RAIL_WISE_*). Credentials come
 * from configuration only. Reads the webhook public key file when a path is given.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../../config';
import { parseDuration } from '../../domain/durations';

/** The connection id of the partner rail (rail_instructions.rail, rail_events.rail, its poller and health). */
export const WISE_RAIL = 'wise';

/** A working partner configuration. Durations in ms. */
export interface WiseRailConfig {
  /** API base URL without a trailing slash. */
  apiUrl: string;
  apiToken: string;
  profileId: string;
  /** The partner's webhook public key, PEM. */
  webhookPublicKey: string;
  /** The balance currency transfers are funded from (the quote's source currency). */
  balanceCurrency: string;
  timeoutMs: number;
  pollIntervalMs: number;
  webhookLateAfterMs: number;
  webhookToleranceMs: number;
  returnWindowMs: number;
}

/** The partner configuration, or null with the unset variables (its channels then stay `paused` in live). */
export function wiseRailConfig(config: Config): { config: WiseRailConfig; missing: [] } | { config: null; missing: string[] } {
  const required = {
    RAIL_WISE_API_URL: config.RAIL_WISE_API_URL,
    RAIL_WISE_API_TOKEN: config.RAIL_WISE_API_TOKEN,
    RAIL_WISE_PROFILE_ID: config.RAIL_WISE_PROFILE_ID,
    RAIL_WISE_WEBHOOK_PUBLIC_KEY: config.RAIL_WISE_WEBHOOK_PUBLIC_KEY,
  };
  const missing = Object.entries(required)
    .filter(([, v]) => !v)
    .map(([k]) => k);
  if (missing.length > 0) return { config: null, missing };
  const key = config.RAIL_WISE_WEBHOOK_PUBLIC_KEY!;
  return {
    missing: [],
    config: {
      apiUrl: config.RAIL_WISE_API_URL!.replace(/\/+$/, ''),
      apiToken: config.RAIL_WISE_API_TOKEN!,
      profileId: config.RAIL_WISE_PROFILE_ID!,
      webhookPublicKey: key.includes('-----BEGIN') ? key : readFileSync(key, 'utf8'),
      balanceCurrency: config.RAIL_WISE_BALANCE_CURRENCY,
      timeoutMs: parseDuration(config.RAIL_WISE_TIMEOUT),
      pollIntervalMs: parseDuration(config.RAIL_WISE_POLL_INTERVAL),
      webhookLateAfterMs: parseDuration(config.RAIL_WISE_WEBHOOK_LATE_AFTER),
      webhookToleranceMs: parseDuration(config.RAIL_WISE_WEBHOOK_TOLERANCE),
      returnWindowMs: parseDuration(config.RAIL_WISE_RETURN_WINDOW),
    },
  };
}
