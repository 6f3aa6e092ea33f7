/**
 * Surface B rate limits across processes (spec "Limits": POST /disbursements 100 per minute per
 * organisation; docs/surface-b.md): two real `npm run api` processes (src/main/api.ts) on one
 * PostgreSQL database share the fixed-window counters, so one organisation gets exactly 100
 * disbursements per minute in total whichever process answers, with correct X-RateLimit-* headers,
 * while another organisation is unaffected. Needs DATABASE_URL (skipped on PGlite).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/temporal/dev-server';
import { createHarness, type Harness } from '../helpers/harness';
import { serviceEnv } from '../helpers/service-env';
import { skipWithoutPostgres } from '../helpers/postgres';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const NO_POSTGRES = skipWithoutPostgres('test/e2e/surface-b-rate-limit.test.ts', 'two API processes sharing one database');

describe.skipIf(NO_POSTGRES)('Surface B rate limits across two API processes', () => {
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

  const post = (base: string, key: string, path: string, body: unknown) =>
    fetch(`${base}/sandbox/claim/v1${path}`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  it('one organisation: exactly 100 POST /disbursements per minute over both processes, then 429 with headers; another is unaffected', async () => {
    const noisy = await h.business();
    const quiet = await h.business();
    for (const biz of [noisy, quiet]) expect((await post(bases[0], biz.sandbox, '/sandbox/fund', { amountUsd: '1000.00' })).status).toBe(200);
    // Stay inside one fixed window: start at most 20 s into a minute.
    while (new Date().getUTCSeconds() > 20) await new Promise((r) => setTimeout(r, 500));

    const results: { status: number; limit: string | null; remaining: string | null; reset: string | null; body: { error?: string } }[] = [];
    const total = 120;
    let next = 0;
    const lane = async () => {
      while (next < total) {
        const i = next++;
        const r = await post(bases[i % 2], noisy.sandbox, '/disbursements', { recipientPhone: '+525512345678', amountUsd: '1.00' });
        results.push({
          status: r.status,
          limit: r.headers.get('X-RateLimit-Limit'),
          remaining: r.headers.get('X-RateLimit-Remaining'),
          reset: r.headers.get('X-RateLimit-Reset'),
          body: (await r.json()) as { error?: string },
        });
      }
    };
    await Promise.all(Array.from({ length: 8 }, lane));

    expect(new Set(results.map((r) => r.reset)).size).toBe(1);
    const reset = Number(results[0].reset);
    expect(reset % 60).toBe(0);
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    const ok = results.filter((r) => r.status === 201);
    const limited = results.filter((r) => r.status === 429);
    expect([ok.length, limited.length]).toEqual([100, 20]);
    expect(ok.every((r) => r.limit === '100')).toBe(true);
    expect(ok.map((r) => Number(r.remaining)).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(limited.every((r) => r.limit === '100' && r.remaining === '0' && r.body.error === 'rate_limit_exceeded')).toBe(true);

    // Another organisation, through either process: its own counter.
    for (const base of bases) {
      const r = await post(base, quiet.sandbox, '/disbursements', { recipientPhone: '+525512345678', amountUsd: '1.00' });
      expect(r.status).toBe(201);
      expect(r.headers.get('X-RateLimit-Limit')).toBe('100');
    }
    const again = await post(bases[1], quiet.sandbox, '/disbursements', { recipientPhone: '+525512345678', amountUsd: '1.00' });
    expect(again.headers.get('X-RateLimit-Remaining')).toBe('97');
  }, 180_000);
});
