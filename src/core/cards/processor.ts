/**
 * The live card processor of the core (docs/getting-paid.md "Card payments"): the configured module
 * connected once per core, or null when none is configured (sandbox card top-ups need none).
 * Minimal version of helper "cardback"; helper "cardin" owns this file.
 */
import type { CardProcessor } from '../../card-processors/processor';
import { connectCardProcessor } from '../../card-processors/registry';
import type { Core } from '../context';

const connected = new WeakMap<object, CardProcessor | null>();

/** The live card processor of `core` (connected on first use, 10 s call timeout), or null when none is configured. */
export function liveCardProcessor(core: Core): CardProcessor | null {
  if (!connected.has(core.config)) connected.set(core.config, connectCardProcessor(core.config as unknown as Record<string, unknown>, { timeoutMs: 10_000 }));
  return connected.get(core.config) ?? null;
}
