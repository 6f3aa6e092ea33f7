/**
 * API key revocation across processes (docs/api-keys.md "Revoking a key"): two real `npm run api`
 * processes (src/main/api.ts) on one PostgreSQL database. A key revoked through process 1 is
 * refused with 401 api_key_revoked by process 2 on its very next request (each process's key cache
 * is evicted by PostgreSQL NOTIFY before the revocation answers; src/core/api-key-cache.ts), and `GET /api-keys` on either never shows a key value. Needs DATABASE_URL
 * (skipped on PGlite, which one process holds).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/temporal/dev-server';
import { createHarness, type Harness } from '../helpers/harness';
import { serviceEnv } from '../helpers/service-env';
import { skipWithoutPostgres } from '../helpers/postgres';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const NO_POSTGRES = skipWithoutPostgres('test/e2e/api-key-revocation.test.ts', 'two API processes sharing one database');

describe.skipIf(NO_POSTGRES)('API key revocation across two API processes', () => {
  let h: Harness;
  const apis: ChildProcess[] = [];
  const bases: string[] = [];

  /** Starts `npm run api`'s entry on loopback; resolves with its base URL once /health answers. */
  async function startApi(): Promise<string> {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/api.ts'], {
      cwd: ROOT,
      env: serviceEnv(h, {
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    apis.push(child);
    let output = '';
    child.stdout?.on('data', (b: Buffer) => (output += String(b)));
    child.stderr?.on('data', (b: Buffer) => (output += String(b)));
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`api exited (${child.exitCode}):\n${output}`);
      try {
        const r = await fetch(`${base}/health`);
        if (r.status === 200 || r.status === 503) return base;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`api did not start in time:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  beforeAll(async () => {
    h = await createHarness({ worker: false });
    bases.push(...(await Promise.all([startApi(), startApi()])));
  }, 180_000);
  afterAll(async () => {
    for (const a of apis) {
      if (a.exitCode === null && a.signalCode === null) {
        a.kill('SIGTERM');
        await new Promise((r) => {
          const t = setTimeout(() => {
            a.kill('SIGKILL');
            r(undefined);
          }, 5000);
          a.once('exit', () => {
            clearTimeout(t);
            r(undefined);
          });
        });
      }
    }
    await h?.close();
  });

  const call = (base: string, method: string, path: string, key: string, body?: unknown) =>
    fetch(`${base}/sandbox/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('a key revoked through process 1 is 401 api_key_revoked on process 2 at once; a rolled key is refused on both', async () => {
    const biz = await h.business();
    const created = await call(bases[0], 'POST', '/api-keys', biz.sandbox, { name: 'Leaky bot' });
    expect(created.status).toBe(201);
    const bot = (await created.json()) as { id: string; key: string };
    // Both processes accept it (each has looked it up once).
    for (const base of bases) expect((await call(base, 'GET', '/balance', bot.key)).status).toBe(200);

    const revoked = await call(bases[0], 'DELETE', `/api-keys/${bot.id}`, biz.sandbox);
    expect(revoked.status).toBe(200);
    const refused = await call(bases[1], 'GET', '/balance', bot.key);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('api_key_revoked');
    expect((await call(bases[0], 'GET', '/balance', bot.key)).status).toBe(401);

    // A roll without a grace period through process 2: the old key is refused by process 1 at once.
    const second = (await (await call(bases[1], 'POST', '/api-keys', biz.sandbox, { name: 'Second bot' })).json()) as { id: string; key: string };
    expect((await call(bases[0], 'GET', '/balance', second.key)).status).toBe(200);
    const rolled = await call(bases[1], 'POST', `/api-keys/${second.id}/roll`, biz.sandbox, {});
    expect(rolled.status).toBe(201);
    const replacement = (await rolled.json()) as { key: string };
    expect((await call(bases[0], 'GET', '/balance', second.key)).status).toBe(401);
    expect((await call(bases[0], 'GET', '/balance', replacement.key)).status).toBe(200);

    // GET /api-keys on either process never shows a key value.
    for (const base of bases) {
      const text = await (await call(base, 'GET', '/api-keys', biz.sandbox)).text();
      for (const key of [biz.sandbox, bot.key, second.key, replacement.key]) expect(text.includes(key)).toBe(false);
      expect(text).toContain(bot.id);
    }
  }, 120_000);
});
