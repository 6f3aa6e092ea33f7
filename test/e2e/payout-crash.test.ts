/**
 * Crash safety of a payout (docs/architecture.md "Money rules"): the real worker process
 * (`node --import tsx src/main/worker.ts`) is killed with SIGKILL while a payout is delivering; a
 * new worker process finishes it. Exactly one hold and one settle posting, balance exact.
 * Needs a PostgreSQL server shared by the processes (DATABASE_URL); skipped on PGlite.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';
import { serviceEnv } from '../helpers/service-env';
import { skipWithoutPostgres } from '../helpers/postgres';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const NO_POSTGRES = skipWithoutPostgres('test/e2e/payout-crash.test.ts', 'a worker process killed and restarted on a shared database');

describe.skipIf(NO_POSTGRES)('payout survives a worker crash (SIGKILL)', () => {
  let h: Harness;
  const workers: ChildProcess[] = [];

  /** Starts a worker process on the harness's database and task queue; resolves once it runs. */
  function startWorker(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/worker.ts'], {
      cwd: ROOT,
      env: serviceEnv(h, {
        SANDBOX_ARRIVAL: h.config.SANDBOX_ARRIVAL,
        WORKFLOW_BUNDLE: inject('workflowBundlePath'),
        LOG_LEVEL: 'info',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    workers.push(child);
    let output = '';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker did not start in time:\n${output}`)), 90_000);
      const onData = (b: Buffer) => {
        output += String(b);
        if (output.includes('worker running')) {
          clearTimeout(timer);
          resolve(child);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`worker exited (${code}) before running:\n${output}`));
      });
    });
  }

  async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await fn();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    h = await createHarness({ worker: false });
  });
  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await h?.close();
  });

  it('a sandbox:slow payout killed mid-delivery is finished by the next worker, settled exactly once', async () => {
    const b = await h.business();
    const funded = await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '100' } });
    expect(funded.status).toBe(200);

    const first = await startWorker();
    const r = await h.request('POST', '/sandbox/v1/payouts', {
      key: b.sandbox,
      body: { channel: 'spei_mxn', recipient: { type: 'bank_account', holder_name: 'Ana López', clabe: '032180000118359719', recipient_kind: 'individual' }, source_amount: '10', reference: 'sandbox:slow' },
    });
    expect(r.status).toBe(201);
    const id: string = r.body.id;

    // Delivering, and the rail has the attempt: the workflow now waits the 5 s arrival.
    await waitFor(async () => {
      const p = await h.db.selectFrom('payouts').select('status').where('id', '=', id).executeTakeFirstOrThrow();
      const a = await h.db.selectFrom('payout_attempts').select('provider_reference').where('payout_id', '=', id).executeTakeFirst();
      return p.status === 'delivering' && !!a?.provider_reference;
    }, 'the payout to be delivering');
    first.kill('SIGKILL');
    await new Promise((r2) => first.once('exit', r2));
    expect(first.signalCode).toBe('SIGKILL');

    await startWorker();
    const done = await waitFor(async () => {
      const g = await h.request('GET', `/sandbox/v1/payouts/${id}`, { key: b.sandbox });
      return ['succeeded', 'failed'].includes(g.body.status) ? g.body : undefined;
    }, 'the payout to finish', 90_000);
    expect(done.status).toBe('succeeded');
    expect(done.attempts).toBe(1);
    expect(done.attempt_history).toHaveLength(1);

    const postings = await h.db.selectFrom('ledger_postings').select(['key', 'amount']).where('key', 'like', `payout:${id}:%`).orderBy('id').execute();
    expect(postings.map((p) => p.key)).toEqual([`payout:${id}:hold`, `payout:${id}:settle`]);
    // 10 USDC + fees 0.365 (provider 0.3 % + 0.25, service 0.5 %, FX spread 0.35 %) = 10.365 held, then settled.
    expect(postings.map((p) => p.amount)).toEqual([10_365_000n, 10_365_000n]);
    const balance = await h.request('GET', '/sandbox/v1/balance', { key: b.sandbox });
    expect(balance.body).toMatchObject({ available: '89.635', held: '0.00' });
    const events = await h.db.selectFrom('events').select('type').where('object_id', '=', id).orderBy('created_at').execute();
    expect(events.map((e) => e.type)).toEqual(['payout.submitted', 'payout.succeeded']);
  }, 240_000);
});
