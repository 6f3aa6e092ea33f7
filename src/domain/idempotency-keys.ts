/**
 * The namespace of each surface's idempotency keys inside the core (docs/architecture.md
 * "Money rules", rule 6). The API's idempotency records are kept per surface (Surface A's key `order-42`
 * and Surface C's `order-42` are two records), so the keys the core stores for the same caller
 * (the payouts' unique (business, environment, idempotency_key) index, ledger posting keys such
 * as `fund:idem:<key>`, deposit external ids) must be told apart by surface too: otherwise a
 * Surface C payout request with a key Surface A already used would be answered with Surface A's
 * payout, and a Surface C sandbox funding with Surface A's funding, creating nothing.
 *
 * The mapping is injective over (surface, key):
 * - Surface B: `claim:<key>`; Surface C: `guide:<key>` (after the surfaces' base addresses).
 * - Surface A: the key itself (as stored before the namespaces existed), except a key that begins
 *   with one of the namespace prefixes (`claim:`, `guide:`, `A:`), which becomes `A:<key>`.
 * So no Surface A key can equal a Surface B or C one, and `A:` keys decode uniquely.
 */

/** The surfaces, as the API names them (src/api/types.ts Surface). */
export type KeySurface = 'A' | 'B' | 'C';

const PREFIX: Record<Exclude<KeySurface, 'A'>, string> = { B: 'claim:', C: 'guide:' };
const ESCAPE = 'A:';

/** The key the core stores for `key` (the client's Idempotency-Key) sent to `surface`. Pure; never throws. */
export function coreIdempotencyKey(surface: KeySurface, key: string): string {
  if (surface !== 'A') return PREFIX[surface] + key;
  const reserved = key.startsWith(ESCAPE) || Object.values(PREFIX).some((p) => key.startsWith(p));
  return reserved ? ESCAPE + key : key;
}
