/**
 * Pausing a channel at runtime (docs/operations.md "Pausing a channel"): `npm run admin -- channel
 * pause <id>` on one PostgreSQL database reaches a separate `npm run api` process within seconds,
 * without a restart: the catalog shows the channel `paused` and a payout on it is 400
 * channel_unavailable; `channel resume` brings it back. Needs DATABASE_URL (PGlite is one process).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/temporal/dev-server';
import { createHarness, type Harness } from '../helpers/harness';
import { skipWithoutPostgres } from '../helpers/postgres';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

const NO_POSTGRES = skipWithoutPostgres('test/e2e/channel-pause.test.ts', 'an API process and the admin CLI sharing one database');

describe.skipIf(NO_POSTGRES)('a channel paused at runtime', () => {
  let h: Harness;
  let api: ChildProcess;
  let base = '';
  let key = '';

  beforeAll(async () => {
    h = await createHarness({ worker: false });
    key = (await h.business()).sandbox;
    const port = await freePort();
    api = spawn(process.execPath, ['--import', 'tsx', 'src/main/api.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: h.databaseUrl, TEMPORAL_ADDRESS: inject('temporalAddress'), TASK_QUEUE: h.config.TASK_QUEUE, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 90_000;
    for (;;) {
      try {
        if ((await fetch(`${base}/health`)).status < 600) break;
      } catch {
        // not listening yet
      }
      if (api.exitCode !== null || Date.now() > deadline) throw new Error('api did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 180_000);
  afterAll(async () => {
    if (api && api.exitCode === null) {
      api.kill('SIGKILL');
      await new Promise((r) => api.once('exit', r));
    }
    await h?.close();
  });

  const admin = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'src/main/admin.ts', ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: h.databaseUrl, LOG_LEVEL: 'warn' } });
  const status = async () => {
    const r = await fetch(`${base}/sandbox/v1/channels?country=MX`, { headers: { Authorization: `Bearer ${key}` } });
    return ((await r.json()) as { data: Array<{ id: string; status: string }> }).data.find((c) => c.id === 'spei_mxn')!.status;
  };
  const within = async (want: string, ms: number) => {
    const t0 = Date.now();
    for (;;) {
      if ((await status()) === want) return Date.now() - t0;
      if (Date.now() - t0 > ms) throw new Error(`spei_mxn still not ${want} after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('pause reaches the other process within seconds (catalog paused, payout 400 channel_unavailable); resume brings it back', async () => {
    expect(await status()).toBe('live');
    const paused = await admin('channel', 'pause', 'spei_mxn', '--reason', 'bank incident 42');
    expect(paused.stdout).toContain('paused');
    expect(paused.stderr).toContain('"msg":"channel paused by operator"');
    await within('paused', 10_000);
    const payout = await fetch(`${base}/sandbox/v1/payouts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ channel: 'spei_mxn', recipient: { type: 'bank_account', holder_name: 'Ana', clabe: '032180000118359719', recipient_kind: 'individual' }, source_amount: '5' }),
    });
    expect(payout.status).toBe(400);
    expect(((await payout.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'channel_unavailable', param: 'channel' });
    const list = JSON.parse((await admin('channel', 'list', '--json')).stdout);
    expect(list).toEqual([expect.objectContaining({ channel: 'spei_mxn', reason: 'bank incident 42' })]);
    await admin('channel', 'resume', 'spei_mxn');
    await within('live', 10_000);
  }, 120_000);
});
