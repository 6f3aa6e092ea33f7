/** The built-in rate sources, registered on import (docs/rates.md "The seam"). */
import { banxicoSource } from './banxico';
import { ecbSource } from './ecb';
import { krakenSource } from './kraken';
import { registerRateSource } from './source';

registerRateSource('ecb', ecbSource);
registerRateSource('kraken', krakenSource);
registerRateSource('banxico', banxicoSource);

export { rateSourceFactory, registeredRateSources, registerRateSource, RateSourceError, type RateSource, type SourceQuote } from './source';
