/**
 * The card-processor registry (docs/getting-paid.md "Card payments"; docs/architecture.md "Seams"):
 * the first module whose settings are complete is the live card processor.
 */
import type { CardProcessor, CardProcessorModule } from './processor';
import { CARD_SEAM_MODULE } from './seam-settings';
import { STRIPE_CARD_PROCESSOR_MODULE } from './stripe/module';

/** Every card-processor module, in order of preference. */
export const CARD_PROCESSOR_MODULES: readonly CardProcessorModule[] = [STRIPE_CARD_PROCESSOR_MODULE as unknown as CardProcessorModule];

/** The seam's registry for the config loader (src/seams/registry.ts): the seam's settings, then each processor's. */
export const CARD_PROCESSORS = [CARD_SEAM_MODULE, ...CARD_PROCESSOR_MODULES] as const;

/** The first module that connects with `settings` (the parsed config), or null: no live card processor. */
export function connectCardProcessor(settings: Record<string, unknown>, context: { timeoutMs: number }): CardProcessor | null {
  for (const m of CARD_PROCESSOR_MODULES) {
    const p = m.connect(settings as never, context);
    if (p) return p;
  }
  return null;
}
