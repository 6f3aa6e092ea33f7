/**
 * Every seam's registry, listed once (docs/architecture.md "Seams"). The config loader
 * (src/config.ts) merges each listed module's `settings` into the service's schema, and
 * `npm run docs:config` documents them in docs/configuration.md. A new seam (screening, card
 * processors, identity, ...) adds its registry array here as one line; a new module of an existing
 * seam adds one line to that seam's own registry, nothing here.
 */
import { NOTIFICATION_PROVIDERS } from '../notifications/registry';
import { RAIL_MODULES } from '../rails/registry';
import { RATE_SOURCES } from '../rates/index';
import { SOLANA_NETWORKS } from '../solana/settings';
import { SCREENING_MODULES } from '../screening/index';
import { CARD_PROCESSORS } from '../card-processors/registry';

/** One seam's registry for the loader and the docs: its folder name, the docs heading and its modules (a tuple). */
export const SEAM_REGISTRIES = [
  RAIL_MODULES,
  NOTIFICATION_PROVIDERS,
  RATE_SOURCES,
  SCREENING_MODULES,
  SOLANA_NETWORKS,
  CARD_PROCESSORS,
] as const;

/** The docs/configuration.md headings of {@link SEAM_REGISTRIES}, in the same order (the generated tables' sections). */
export const SEAM_TITLES: readonly string[] = [
  'Rails',
  'Notification providers',
  'Rate sources',
  'Sanctions screening',
  'USDC on Solana',
  'Card processors',
];
