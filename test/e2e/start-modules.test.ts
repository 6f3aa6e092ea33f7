/**
 * What a process loads at start (docs/operations.md "Idle cost"): the real `npm run api` and
 * `npm run worker` entries (src/main/api.ts, src/main/worker.ts), with no seam configured that needs
 * them, load none of the packages that only one seam needs; those are loaded at the seam's first use
 * (src/lazy-package.ts). Each process preloads test/fixtures/package-log.mjs, which writes every npm
 * package a module is loaded from. Needs DATABASE_URL (skipped on PGlite, which one process holds).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/temporal/dev-server';
import { createHarness, type Harness } from '../helpers/harness';
import { serviceEnv } from '../helpers/service-env';
import { skipWithoutPostgres } from '../helpers/postgres';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Packages only one seam needs; none is loaded by a process that has not used that seam. */
const SEAM_PACKAGES = [
  'twilio',
  'nodemailer',
  'ssh2-sftp-client',
  'xmllint-wasm',
  '@solana/kit',
  'date-holidays',
  'fast-xml-parser',
  'saxes',
  '@sindresorhus/transliterate',
  'csv-parse',
  'csv-stringify',
  'libphonenumber-js',
  'talisman',
  'curp',
  'cpf-cnpj-validator',
  'stripe',
  '@electric-sql/pglite',
];

const NO_POSTGRES = skipWithoutPostgres('test/e2e/start-modules.test.ts', 'an API and a worker process sharing one database');

describe.skipIf(NO_POSTGRES)('packages loaded at start by the API and the worker', () => {
  let h: Harness;
  const children: ChildProcess[] = [];
  let dir = '';
  const loaded = (name: string) => new Set(readFileSync(join(dir, `${name}.txt`), 'utf8').split('\n').filter(Boolean));

  /** Starts `src/main/<entry>.ts` with the package log; resolves once `ready` says it is up. */
  async function start(entry: 'api' | 'worker', env: Record<string, string>, ready: (output: string) => Promise<boolean>): Promise<void> {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/fixtures/package-log.mjs', `src/main/${entry}.ts`], {
      cwd: ROOT,
      env: serviceEnv(h, {
        PACKAGE_LOG: join(dir, `${entry}.txt`),
        LOG_LEVEL: 'info',
        ...env,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout?.on('data', (b: Buffer) => (output += String(b)));
    child.stderr?.on('data', (b: Buffer) => (output += String(b)));
    const deadline = Date.now() + 90_000;
    while (!(await ready(output))) {
      if (child.exitCode !== null) throw new Error(`${entry} exited (${child.exitCode}):\n${output}`);
      if (Date.now() > deadline) throw new Error(`${entry} did not start in time:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'start-modules-'));
    h = await createHarness({ worker: false });
    const port = await freePort();
    await Promise.all([
      start('api', { PORT: String(port), HOST: '127.0.0.1' }, async () => {
        try {
          return (await fetch(`http://127.0.0.1:${port}/v1/openapi.json`)).status === 200;
        } catch {
          return false;
        }
      }),
      start('worker', { WORKFLOW_BUNDLE: inject('workflowBundlePath') }, async (output) => output.includes('worker running')),
    ]);
  }, 180_000);
  afterAll(async () => {
    for (const c of children) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (c.exitCode === null) c.kill('SIGKILL');
    }
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the API, having served its OpenAPI document, loaded its own packages and none of the seams\'', () => {
    const api = loaded('api');
    expect(api.has('hono') && api.has('kysely') && api.has('@temporalio/client')).toBe(true);
    expect(SEAM_PACKAGES.filter((p) => api.has(p))).toEqual([]);
  });

  it('the running worker loaded its own packages and none of the seams\'', () => {
    const worker = loaded('worker');
    expect(worker.has('@temporalio/worker') && worker.has('kysely')).toBe(true);
    expect(SEAM_PACKAGES.filter((p) => worker.has(p))).toEqual([]);
  });
});
