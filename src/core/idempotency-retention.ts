/**
 * Idempotency-Key retention on payouts and disbursements (docs/getting-paid.md "Idempotency
 * retention"): a key older than 30 days is retired on its old resource (`<key>#retired:<id>`)
 * before it is used again, so it starts a new one. Each table's owner retires its keys.
 */

/** Surface A's idempotency retention (spec "Limits"): 30 days, in ms. */
export const IDEMPOTENCY_KEY_RETENTION_MS = 30 * 24 * 3600 * 1000;

/** The oldest creation time a resource may have and still answer for its Idempotency-Key. */
export const retentionCutoff = (now: Date) => new Date(now.getTime() - IDEMPOTENCY_KEY_RETENTION_MS);
