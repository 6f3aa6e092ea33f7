/**
 * The one shape of every outside system (docs/architecture.md "Seams"): a module per system is a
 * {@link SeamModule} (stable `id`, its own variables as a zod `settings` shape), listed in its seam's
 * registry. A module never imports src/config.ts; it reads its settings ({@link SettingsOf}) as handed.
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
