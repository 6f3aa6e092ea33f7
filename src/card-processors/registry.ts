/**
 * The card-processor registry (docs/getting-paid.md "Card payments"; docs/architecture.md "Seams"):
 * the first module whose settings are complete is the live card processor.
 */
import type { CardProcessor } from './processor';

/** Every card-processor module, in order of preference. */
export const CARD_PROCESSORS = [] as const;

/** The first module that connects with `settings` (the parsed config), or null: no live card processor. */
export function connectCardProcessor(settings: Record<string, unknown>, context: { timeoutMs: number }): CardProcessor | null {
  for (const m of CARD_PROCESSORS as readonly { connect(s: never, c: { timeoutMs: number }): CardProcessor | null }[]) {
    const p = m.connect(settings as never, context);
    if (p) return p;
  }
  return null;
}
