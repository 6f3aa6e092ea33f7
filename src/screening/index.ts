/** The screening seam's registry (docs/screening.md; docs/architecture.md "Seams"): one module per sanctions list, a plain array, and the seam's own variables. */
import { z } from 'zod';
import { parseDuration } from '../domain/durations';
import type { SeamModule } from '../seams/module';
import { isoDuration } from '../seams/settings';
import type { ScreeningListModule } from './entry';
import { euFsf } from './lists/eu-fsf';
import { ofacSdnCsv } from './lists/ofac-sdn-csv';
import { ofacSdnXml } from './lists/ofac-sdn-xml';
import { sandboxList } from './lists/sandbox-list';
import { ukSanctions } from './lists/uk-sanctions';
import { unSc } from './lists/un-sc';

/** Every sanctions list module. */
export const SCREENING_LIST_MODULES: readonly ScreeningListModule[] = [ofacSdnCsv, ofacSdnXml, euFsf, unSc, ukSanctions, sandboxList];

/** The list module with this id, else undefined. */
export const screeningListModule = (id: string) => SCREENING_LIST_MODULES.find((m) => m.id === id);

/** The seam's own variables (docs/screening.md "Configuration"). */
export const SCREENING_SETTINGS = {
  SCREENING_LISTS: z
    .string()
    .default('ofac-sdn-csv')
    .describe(`Comma-separated ids of the lists live payouts are screened against (${SCREENING_LIST_MODULES.map((m) => m.id).join(', ')}); the sandbox always screens against \`sandbox\` alone.`),
  SCREENING_MIN_SCORE: z.coerce.number().min(0.5).max(1).default(0.88).describe('The score (0..1) at which a name is a potential match (docs/screening.md "Thresholds").'),
  SCREENING_UNAVAILABLE_RECHECK: isoDuration('PT1M')
    .default('PT1M')
    .describe('How long a payout held because screening is unavailable waits before it is screened again (docs/screening.md "Holding payouts").'),
} as const;

/** The seam-wide settings as a module of its own, so the config loader merges and documents them (src/seams/registry.ts). */
export const SCREENING_SEAM_MODULE = { id: 'screening', settings: SCREENING_SETTINGS } as const;

/** The screening seam's registry for the config loader: the seam's settings, then every list module's. */
export const SCREENING_MODULES: readonly SeamModule[] = [SCREENING_SEAM_MODULE, ...SCREENING_LIST_MODULES];

/** The screening settings: the seam's and every list module's, as one zod shape. */
export const screeningSettingsShape = () => Object.assign({}, SCREENING_SETTINGS, ...SCREENING_LIST_MODULES.map((m) => m.settings)) as z.ZodRawShape;

/** Screening configuration as the service takes it. */
export interface ScreeningConfig {
  lists: { module: ScreeningListModule; source: ReturnType<ScreeningListModule['source']> }[];
  minScore: number;
  /** SCREENING_UNAVAILABLE_RECHECK in ms. */
  unavailableRecheckMs: number;
}

/** Parses the screening variables out of `env` (throws zod's error on a bad value or an unknown list id). */
export function screeningConfig(env: Record<string, unknown>): ScreeningConfig {
  const parsed = z.object(screeningSettingsShape()).parse(env) as Record<string, unknown>;
  const ids = String(parsed['SCREENING_LISTS']).split(',').map((s) => s.trim()).filter(Boolean);
  const lists = ids.map((id) => {
    const module = screeningListModule(id);
    if (!module) throw new Error(`SCREENING_LISTS: unknown list ${id} (known: ${SCREENING_LIST_MODULES.map((m) => m.id).join(', ')})`);
    return { module, source: module.source(parsed) };
  });
  return { lists, minScore: parsed['SCREENING_MIN_SCORE'] as number, unavailableRecheckMs: parseDuration(String(parsed['SCREENING_UNAVAILABLE_RECHECK'])) };
}
