/**
 * The one shape of every outside system (docs/architecture.md "Seams"): rails, notification
 * providers, rate sources, the Solana network, and the seams still to come (screening, card
 * processors, identity). A seam is a folder `src/<system>/` holding
 *
 * - one module per outside system, each a {@link SeamModule}: a stable `id` and the module's own
 *   environment variables as a zod shape (`settings`), which the config loader merges into the
 *   service's configuration at load (src/config.ts) and docs/configuration.md documents from the
 *   schema (each variable's `.describe()` text);
 * - a registry that is a plain array of those modules (`RAIL_MODULES`, ...), listed once in
 *   src/seams/registry.ts.
 *
 * Adding an outside system is its folder and one registry line: nothing in src/config.ts or
 * src/core changes. A module never imports src/config.ts (the loader imports the registries);
 * it reads its own parsed settings ({@link SettingsOf}) from what it is handed.
 */
import type { z } from 'zod';

/** A module's environment variables: a zod raw shape whose keys are the variable names (`RAIL_SEPA_SFTP_HOST`). */
export type SeamSettings = z.ZodRawShape;

/** One outside system's module (docs/architecture.md "Seams"). */
export interface SeamModule<S extends SeamSettings = SeamSettings> {
  /** Stable id within its seam (`sepa_credit_transfer`, `smtp`, `ecb`). */
  readonly id: string;
  /** The module's own variables, merged into the service's config schema at load. */
  readonly settings: S;
}

/** The parsed settings of module `M` (what src/config.ts's loader produced for its variables). */
export type SettingsOf<M extends SeamModule> = z.infer<z.ZodObject<M['settings']>>;
