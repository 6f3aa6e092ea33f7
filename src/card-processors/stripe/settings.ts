/**
 * The Stripe card processor's variables (docs/configuration.md "Card processors", generated from
 * these descriptions by `npm run docs:config`). Without both `CARD_STRIPE_SECRET_KEY` and
 * `CARD_STRIPE_WEBHOOK_SECRET` the module does not connect: no live card processor
 * (docs/getting-paid.md "Card payments").
 */
import { z } from 'zod';

export const STRIPE_SETTINGS = {
  CARD_STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(live|test)_\S+$/, 'a Stripe secret or restricted key (sk_live_…, rk_live_…, sk_test_…)')
    .optional()
    .describe('the Stripe secret (or restricted) API key live card payments are made with; from configuration only, never the database (unset: no live card processor)'),
  CARD_STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\S+$/, 'a Stripe webhook signing secret (whsec_…)')
    .optional()
    .describe("the signing secret of the Stripe webhook endpoint pointed at `/hooks/card/stripe` (`whsec_…`); events are verified with it, tolerance 300 s (unset: no live card processor)"),
  CARD_STRIPE_API_URL: z
    .string()
    .regex(/^https?:\/\/[^/:]+(:[0-9]{1,5})?\/?$/, 'http(s)://host[:port]')
    .optional()
    .describe("a Stripe-compatible API's `http(s)://host:port` instead of `https://api.stripe.com` (the test card processor prints its own; unset in production)"),
  CARD_STRIPE_MAX_NETWORK_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .default(2)
    .describe("how many times the Stripe client retries a call that failed on the network, 409, 429 or 5xx (with the same idempotency key) before the call fails as retryable"),
};
