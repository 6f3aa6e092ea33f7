/**
 * The core's live card processor (docs/getting-paid.md "Card payments"): the first module of
 * src/card-processors/registry.ts whose settings are complete, connected once per config. Live
 * only: the sandbox keeps its built-in checkout page for top-ups.
 */
import type { Config } from '../../config';
import type { CardProcessor } from '../../card-processors/processor';
import { connectCardProcessor } from '../../card-processors/registry';
import type { Core } from '../context';

/** How long one processor call may take, ms. */
export const CARD_PROCESSOR_TIMEOUT_MS = 15_000;

const byConfig = new WeakMap<object, CardProcessor | null>();

/** The live card processor of `config`, or null when none is configured (card is not offered live). */
export function cardProcessorFor(config: Config): CardProcessor | null {
  if (!byConfig.has(config)) byConfig.set(config, connectCardProcessor(config as unknown as Record<string, unknown>, { timeoutMs: CARD_PROCESSOR_TIMEOUT_MS }));
  return byConfig.get(config) ?? null;
}

/** {@link cardProcessorFor} the core's config. */
export function liveCardProcessor(core: Core): CardProcessor | null {
  return cardProcessorFor(core.config);
}

/**
 * Tests only: makes `processor` the live card processor of `config` (a harness's config), or null
 * for none; `undefined` forgets it (the next call connects from the config again).
 */
export function setCardProcessorForTests(config: Config, processor: CardProcessor | null | undefined): void {
  if (processor === undefined) byConfig.delete(config);
  else byConfig.set(config, processor);
}
