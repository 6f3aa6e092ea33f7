import './node-version';
import { serve } from '@hono/node-server';
import { loadConfig } from '../config';
import { createApp } from '../api/app';
import { startApiKeyCache } from '../core/api-key-cache';
import { failoverSettingsOf } from '../db/primary';
import { startRailHealthChecks } from '../core/rails/lifecycle';
import { refreshRateCache } from '../core/rates/cache';
import { startScreening } from '../core/screening/running';
import { keepMemoryReducerAwake } from './memory-reducer';
import { buildCore, closeCore } from './runtime';

/** `npm run api`: the HTTP API process. Configured by DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, PORT, HOST. */
const config = loadConfig();
if (!config.DATABASE_URL) {
  console.error('npm run api needs DATABASE_URL (PGlite is single-process; use `npm run dev` for the all-in-one mode)');
  process.exit(2);
}
const core = await buildCore(config, { role: 'payouts_api' });
const keyCache = await startApiKeyCache(core.db, config.DATABASE_URL, core.log, failoverSettingsOf(config));
const stopRailChecks = await startRailHealthChecks(core);
// Syncs the lists the worker fetches (docs/screening.md "Versions and refresh").
const stopScreening = startScreening(core, { fetch: false });
await refreshRateCache(core).catch((err: Error) => core.log.warn({ err }, 'live rates not read yet'));
const server = serve({ fetch: createApp(core).fetch, port: config.PORT, hostname: config.HOST }, (info) =>
  core.log.info({ port: info.port }, 'api listening'),
);
// Only between requests (none for 2 s): under traffic V8's heuristics stay exactly as they were.
let lastRequestAt = 0;
server.on('request', () => {
  lastRequestAt = performance.now();
});
const stopReducerNudge = keepMemoryReducerAwake(() => performance.now() - lastRequestAt > 2000);
const shutdown = () => {
  stopRailChecks();
  stopScreening();
  stopReducerNudge();
  server.close(() => void keyCache.stop().then(() => closeCore(core)).then(() => process.exit(0)));
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
