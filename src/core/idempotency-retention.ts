/**
 * Idempotency-Key retention on the resources that carry their key (spec "Limits": Surface A keeps
 * idempotency 30 days; docs/getting-paid.md "Idempotency retention"). Payouts and disbursements
 * store the request's key under a unique index, so a process that dies between creating the
 * resource and completing the idempotency record cannot make a second one. That index must not
 * outlive the retention: a key older than 30 days starts a new payout or disbursement. Before such
 * a key is used again, the old resource's key is retired (renamed `<key>#retired:<id>`, kept for
 * operators): for a disbursement in the transaction that creates the new one, for a payout in the
 * statement that looks the key up after an accept refused by the key's unique index, before the
 * accept runs once more (src/core/payouts/accept.ts; retiring a key past its retention changes no
 * answer, so it needs no transaction with the new payout). Each table's owner retires its keys
 * (src/core/payouts/transitions.ts, src/core/disbursements/disbursement-store.ts).
 */

/** Surface A's idempotency retention (spec "Limits"): 30 days, in ms. */
export const IDEMPOTENCY_KEY_RETENTION_MS = 30 * 24 * 3600 * 1000;

/** The oldest creation time a resource may have and still answer for its Idempotency-Key. */
export const retentionCutoff = (now: Date) => new Date(now.getTime() - IDEMPOTENCY_KEY_RETENTION_MS);
