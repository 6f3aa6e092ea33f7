/** The rate sources (docs/rates.md "The seam"): a plain registry, no registration on import. */
import { BANXICO_MODULE } from './banxico';
import { ECB_MODULE } from './ecb';
import { KRAKEN_MODULE } from './kraken';

/** Every rate-source module; RATE_ROUTES names them by id. Adding a source is its module and one line here. */
export const RATE_SOURCES = [ECB_MODULE, KRAKEN_MODULE, BANXICO_MODULE] as const;

export { RateSourceError, type RateSource, type RateSourceContext, type RateSourceModule, type SourceQuote } from './source';
