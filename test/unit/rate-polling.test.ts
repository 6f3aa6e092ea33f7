/** The refresher polls only what a live route uses (docs/rates.md "Refresher"). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import type { Core } from '../../src/core/context';
import { liveRateCurrencies, routeSources, startRateRefresher } from '../../src/core/rates/refresher';
import type { Db } from '../../src/db/schema';
import { sandboxAdapters } from '../../src/sandbox/adapters';
import { createScreeningServices } from '../../src/core/screening/service';
import type { TemporalClient } from '../../src/temporal/client';
import { freshDatabase } from '../helpers/fresh-database';

const SEPA = {
  RAIL_SEPA_SFTP_HOST: '127.0.0.1',
  RAIL_SEPA_SFTP_USER: 'bank',
  RAIL_SEPA_SFTP_KEY_PATH: '/dev/null',
  RAIL_SEPA_SFTP_HOST_KEY: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  RAIL_SEPA_DEBTOR_NAME: 'Acme Payouts SAS',
  RAIL_SEPA_DEBTOR_IBAN: 'FR1420041010050500013M02606',
  RAIL_SEPA_DEBTOR_BIC: 'PSSTFRPPXXX',
};

let db: Db;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ db, close } = await freshDatabase());
});
afterAll(async () => close?.());

function coreWith(env: Record<string, string>, lines: Array<{ msg: string; obj?: unknown }> = []): Core {
  const say = (a: unknown, b?: string) => lines.push(typeof a === 'string' ? { msg: a } : { msg: b ?? '', obj: a });
  const log = { info: say, warn: say, error: say, debug() {} };
  // A config object of its own per core: the rail connections are cached per config.
  const config = loadConfig({ PATH: process.env.PATH, RATE_FETCH_TIMEOUT: 'PT0.1S', RATE_REFRESH_INTERVAL: 'PT1H', ...env });
  return { db, temporal: {} as TemporalClient, config, log: log as unknown as Core['log'], now: () => new Date(), sandbox: sandboxAdapters(), screening: createScreeningServices(db, {}) };
}

describe('rate polling follows the live channels', () => {
  it('with no live rail configured (npm run dev defaults) no currency needs a live rate, and the refresher polls nothing and says so once', async () => {
    const lines: Array<{ msg: string; obj?: unknown }> = [];
    // Every source unreachable: a poll would warn.
    const core = coreWith({ RATE_ECB_URL: 'http://127.0.0.1:9/ecb', RATE_KRAKEN_URL: 'http://127.0.0.1:9/kraken', RATE_BANXICO_URL: 'http://127.0.0.1:9/banxico' }, lines);
    expect(liveRateCurrencies(core)).toEqual([]);
    const stop = await startRateRefresher(core, { awaitFirst: true });
    await stop();
    expect(lines).toEqual([{ msg: expect.stringContaining('none polled, no live channel needs one') }]);
  });

  it('a configured SEPA rail makes EUR live, and only EUR\'s sources are polled', async () => {
    const lines: Array<{ msg: string; obj?: unknown }> = [];
    const core = coreWith({ ...SEPA, RATE_ROUTES: 'USD=kraken@PT5M,EUR=ecb@P4D,MXN=banxico@P4D', RATE_ECB_URL: 'http://127.0.0.1:9/ecb' }, lines);
    expect(liveRateCurrencies(core)).toEqual(['EUR']);
    expect(routeSources(core, undefined, liveRateCurrencies(core)).map((s) => s.id)).toEqual(['ecb']);
    const stop = await startRateRefresher(core, { awaitFirst: true });
    await stop();
    expect(lines.find((l) => l.msg === 'live rates polled for the currencies of the live channels')?.obj).toEqual({ currencies: ['EUR'], sources: ['ecb'] });
  });

  it('`routes` polls every routed currency (the test harness\'s override)', async () => {
    const lines: Array<{ msg: string; obj?: unknown }> = [];
    const core = coreWith({ RATE_ROUTES: 'USD=kraken@PT5M,EUR=ecb@P4D', RATE_ECB_URL: 'http://127.0.0.1:9/ecb', RATE_KRAKEN_URL: 'http://127.0.0.1:9/kraken' }, lines);
    const stop = await startRateRefresher(core, { awaitFirst: true, polling: 'routes' });
    await stop();
    expect(lines.find((l) => l.msg === 'live rates polled for the currencies of the live channels')?.obj).toEqual({ currencies: ['USD', 'EUR'], sources: ['kraken', 'ecb'] });
  });
});
