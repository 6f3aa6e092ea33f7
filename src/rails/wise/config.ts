/** The payout partner rail's configuration (RAIL_WISE_*; docs/rails.md "Payout partner"); credentials from configuration only. */
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { parseDuration } from '../../domain/durations';
import type { WISE_SETTINGS } from './settings';

/** The module's parsed variables (src/rails/wise/settings.ts). */
export type WiseSettings = z.infer<z.ZodObject<typeof WISE_SETTINGS>>;

/** The connection id (rail_instructions.rail, rail_events.rail). */
export const WISE_RAIL = 'wise';

/** Durations in ms. */
export interface WiseRailConfig {
  apiUrl: string;
  apiToken: string;
  profileId: string;
  webhookPublicKey: string;
  balanceCurrency: string;
  timeoutMs: number;
  pollIntervalMs: number;
  webhookLateAfterMs: number;
  webhookToleranceMs: number;
  returnWindowMs: number;
  /** How often a sent transfer is asked for within its return window (a refund whose webhook was lost). */
  returnPollIntervalMs: number;
}

/** Null with the unset variables (the channels stay `paused` in live). */
export function wiseRailConfig(config: WiseSettings): { config: WiseRailConfig; missing: [] } | { config: null; missing: string[] } {
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
      returnPollIntervalMs: parseDuration(config.RAIL_WISE_RETURN_POLL_INTERVAL),
    },
  };
}
