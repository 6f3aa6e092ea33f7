/**
 * The worker process's own `GET /metrics` (docs/operations.md): the real `src/main/worker.ts` on
 * METRICS_PORT serves its prom-client metrics merged with the Temporal SDK's worker metrics
 * (Runtime telemetry, Prometheus). Each process counts what it did: the API (this test process)
 * counts the payout it accepted, the worker process the payout it finished.
 * Needs a PostgreSQL server shared by the processes (DATABASE_URL); skipped on PGlite.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPayoutsClient, unwrap } from '../../clients/typescript';
import { METRIC_LABELS } from '../../src/core/metrics/registry';
import { freePort } from '../../src/temporal/dev-server';
import { createHarness, type Harness } from '../helpers/harness';
import { serviceEnv } from '../helpers/service-env';
import { parsePrometheus, sumOf, type Sample } from '../helpers/prometheus';
import { skipWithoutPostgres } from '../helpers/postgres';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const NO_POSTGRES = skipWithoutPostgres('test/e2e/metrics-worker.test.ts', 'a separate worker process sharing one database');

describe.skipIf(NO_POSTGRES)('worker GET /metrics (separate worker process)', () => {
  let h: Harness;
  let child: ChildProcess | undefined;
  let metricsUrl: string;
  const token = 'worker-metrics-token-0123';

  beforeAll(async () => {
    h = await createHarness({ worker: false });
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main/worker.ts'], {
      cwd: ROOT,
      env: serviceEnv(h, {
        SANDBOX_ARRIVAL: h.config.SANDBOX_ARRIVAL,
        WORKFLOW_BUNDLE: inject('workflowBundlePath'),
        METRICS_PORT: String(port),
        METRICS_TOKEN: token,
        LOG_LEVEL: 'info',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker did not start in time:\n${output}`)), 90_000);
      const onData = (b: Buffer) => {
        output += String(b);
        if (output.includes('worker running')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child!.stdout?.on('data', onData);
      child!.stderr?.on('data', onData);
      child!.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`worker exited (${code}) before running:\n${output}`));
      });
    });
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await h?.close();
  });

  let lastText = '';
  const scrapeWorker = async (): Promise<Sample[]> => {
    const res = await fetch(metricsUrl, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    lastText = await res.text();
    return parsePrometheus(lastText);
  };

  it('serves its own metrics and the Temporal SDK worker metrics; the finished payout is counted by the worker', async () => {
    const b = await h.business();
    // The integrator's side through the typed client (in-process fetch to the API app).
    const api = createPayoutsClient({ baseUrl: 'http://api.test', apiKey: b.sandbox, fetch: (req) => Promise.resolve(h.app.fetch(req)) });
    unwrap(await api.POST('/sandbox/fund', { body: { amount: '20' } }));
    const before = await scrapeWorker();
    const sel = { channel: 'service_user_usdc', environment: 'sandbox', status: 'succeeded' };
    const po = unwrap(
      await api.POST('/payouts', { body: { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: '2' } }),
    );
    await waitFor(async () => unwrap(await api.GET('/payouts/{id}', { params: { path: { id: po.id } } })).status === 'succeeded', 'payout succeeded');

    const after = await waitFor(async () => {
      const s = await scrapeWorker();
      return sumOf(s, 'payouts_finished_total', sel) - sumOf(before, 'payouts_finished_total', sel) === 1 ? s : undefined;
    }, 'payouts_finished_total to move on the worker');
    // The worker did not accept it: the API process counted the creation.
    expect(sumOf(after, 'payouts_created_total', { channel: 'service_user_usdc' })).toBe(sumOf(before, 'payouts_created_total', { channel: 'service_user_usdc' }));
    const apiMetrics = parsePrometheus(await (await h.app.request('/metrics')).text());
    expect(sumOf(apiMetrics, 'payouts_created_total', { channel: 'service_user_usdc', environment: 'sandbox' })).toBeGreaterThanOrEqual(1);

    // The Temporal SDK's own worker metrics, merged in (Runtime telemetry, Prometheus).
    const temporal = after.filter((s) => s.name.startsWith('temporal_'));
    expect(temporal.length).toBeGreaterThan(0);
    expect(temporal.some((s) => s.name.startsWith('temporal_worker_task_slots_available'))).toBe(true);
    expect(temporal.some((s) => s.labels.task_queue === h.config.TASK_QUEUE)).toBe(true);
    // Our documented metrics are all there, with their documented labels only; no id anywhere.
    for (const name of Object.keys(METRIC_LABELS)) expect(lastText).toContain(`# TYPE ${name} `);
    for (const s of after) {
      expect(Object.keys(s.labels)).not.toContain('workflow_id');
      for (const v of Object.values(s.labels)) expect(v).not.toContain(po.id);
    }
  });

  it('401 without the METRICS_TOKEN; 404 on any other path', async () => {
    expect((await fetch(metricsUrl)).status).toBe(401);
    expect((await fetch(metricsUrl, { headers: { Authorization: 'Bearer worker-metrics-token-0124' } })).status).toBe(401);
    expect((await fetch(metricsUrl.replace('/metrics', '/'), { headers: { Authorization: `Bearer ${token}` } })).status).toBe(404);
  });
});
