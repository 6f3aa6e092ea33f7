/** The card seam's own variables (docs/getting-paid.md "Card payments"), whichever processor is configured. */
import { z } from 'zod';
import { isoDuration } from '../seams/settings';

export const CARD_SETTINGS = {
  CARD_RESERVE_PERCENT: z
    .string()
    .regex(/^(100|[0-9]{1,2})(\.[0-9]{1,2})?$/, 'a percent from 0 to 100 with at most 2 decimals')
    .default('10')
    .describe('The share of each live card deposit held in the rolling reserve, percent (decimal string, 0 to 100).'),
  CARD_RESERVE_PERIOD: isoDuration('P90D').default('P90D').describe('How long a card deposit\'s reserve is held before it returns to `available` (ISO 8601 duration).'),
  CARD_CHECKOUT_LIFETIME: isoDuration('PT24H')
    .default('PT24H')
    .describe('How long a live Checkout Session stays payable (at least 30 minutes, at most 24 hours, the processor\'s limits).'),
  CARD_POLL_AFTER: isoDuration('PT5M')
    .default('PT5M')
    .describe('An open or processing card payment with no event for this long is asked of the processor (`GET` the session), so a lost event changes nothing.'),
} as const;

/** The seam-wide settings as a module of its own, so the config loader merges and documents them. */
export const CARD_SEAM_MODULE = { id: 'cards', settings: CARD_SETTINGS } as const;
