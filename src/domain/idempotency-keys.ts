/**
 * Namespaces each surface's idempotency keys inside the core (docs/architecture.md "Money rules" 6),
 * so one key on two surfaces never finds the other's payout. Injective over (surface, key): B
 * `claim:<key>`, C `guide:<key>`, A the key itself unless it starts with `claim:`, `guide:` or `A:`
 * (then `A:<key>`).
 */

export type KeySurface = 'A' | 'B' | 'C';

const PREFIX: Record<Exclude<KeySurface, 'A'>, string> = { B: 'claim:', C: 'guide:' };
const ESCAPE = 'A:';

/** The key the core stores for the client's Idempotency-Key on `surface`. Never throws. */
export function coreIdempotencyKey(surface: KeySurface, key: string): string {
  if (surface !== 'A') return PREFIX[surface] + key;
  const reserved = key.startsWith(ESCAPE) || Object.values(PREFIX).some((p) => key.startsWith(p));
  return reserved ? ESCAPE + key : key;
}
