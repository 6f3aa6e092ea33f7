/** OpenAPI schema of the live rate provenance (docs/rates.md "On the wire"; src/wire/surface-a/fees.ts WireRateDetails). */
import { z } from '@hono/zod-openapi';

/** `rate_details` of a live quote, payout or deposit (absent in the sandbox). */
export const RateDetailsSchema = z
  .object({
    reference_rate: z.string().openapi({ description: 'The live reference rate before the spread: 1 USDC buys <reference_rate> units (10 decimals at most, truncated)', example: '0.9201234567' }),
    source: z.string().openapi({ description: "Rate source(s) of the rate's legs, joined by '+': ecb+kraken is the ECB's euro cross with USDC/USD from Kraken's ticker", example: 'ecb+kraken' }),
    as_of: z.string().openapi({ description: "When the oldest leg's rate was set (ISO 8601 UTC)", example: '2026-11-26T12:15:00.000Z' }),
    spread_bps: z.number().int().openapi({ description: 'Spread in basis points: taken in `rate` on quotes and payouts (its cost is fees.fx_spread), charged as fees.fx_spread on deposits', example: 40 }),
  })
  .openapi('RateDetails', { description: 'Live only: where the rate came from, how old it was, and the spread applied' });
