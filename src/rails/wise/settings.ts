/**
 * The wise_api partner module's variables (docs/configuration.md "Rails", generated from these
 * descriptions by `npm run docs:config`). Unset `RAIL_WISE_API_URL`, `RAIL_WISE_API_TOKEN`,
 * `RAIL_WISE_PROFILE_ID` or `RAIL_WISE_WEBHOOK_PUBLIC_KEY`: its channels stay `paused` in live
 * (docs/rails.md "Payout partner").
 */
import { z } from 'zod';
import { isoDuration } from '../../seams/settings';

export const WISE_SETTINGS = {
  RAIL_WISE_API_URL: z
    .string()
    .url()
    .optional()
    .describe("the partner's API base URL (`https://api.wise.com`; sandbox `https://api.sandbox.transferwise.tech`; the test partner prints its own; unset: the partner's channels stay `paused`)"),
  RAIL_WISE_API_TOKEN: z.string().min(1).optional().describe('the partner API token, sent as `Authorization: Bearer`; from configuration only, never the database (unset: channels `paused`)'),
  RAIL_WISE_PROFILE_ID: z.string().regex(/^[0-9]+$/, 'a numeric Wise profile id').optional().describe('the business profile whose balance funds the transfers (unset: channels `paused`)'),
  RAIL_WISE_WEBHOOK_PUBLIC_KEY: z.string().min(1).optional().describe("the partner's published webhook public key: PEM text, or the path of a PEM file (unset: channels `paused`)"),
  RAIL_WISE_BALANCE_CURRENCY: z.string().regex(/^[A-Z]{3}$/).default('USD').describe("the balance currency transfers are funded from (each quote's source currency)"),
  RAIL_WISE_TIMEOUT: isoDuration('PT10S').default('PT10S').describe('how long one partner call may take before its outcome counts as unknown (the same attempt is asked again with the same customerTransactionId)'),
  RAIL_WISE_POLL_INTERVAL: isoDuration('PT30S').default('PT30S').describe("how often the partner rail's poller runs"),
  RAIL_WISE_WEBHOOK_LATE_AFTER: isoDuration('PT2M').default('PT2M').describe('a transfer whose state has not moved for this long is asked for by polling (its webhook is late)'),
  RAIL_WISE_WEBHOOK_TOLERANCE: isoDuration('PT5M').default('PT5M').describe('a webhook whose `sent_at` is further than this from now is refused (401) as a replay'),
  RAIL_WISE_RETURN_WINDOW: isoDuration('P30D').default('P30D').describe('how long after `outgoing_payment_sent` a bounce still refunds the payout'),
  RAIL_WISE_RETURN_POLL_INTERVAL: isoDuration('PT12H')
    .default('PT12H')
    .describe('how often a sent transfer is asked for while inside `RAIL_WISE_RETURN_WINDOW`, so a bounce or refund whose webhook was lost still reaches its payout (P30D / PT12H: 60 asks per transfer)'),
};
