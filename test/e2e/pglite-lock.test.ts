import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { acquirePgliteLock, lockPath, PgliteLockedError } from '../../src/db/pglite-lock';

/**
 * docs/security.md: while `npm run dev` has the PGlite directory of
 * DATA_DIR open, `npm run admin` (or a second dev) refuses with a clear message and never opens it;
 * a lock left by a dead process is taken over. Real processes, spawned as the npm scripts run them.
 */

const ROOT = resolve(__dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hardening-pglite-lock-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const freePort = () =>
  new Promise<number>((r) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => r(port));
    });
  });

function admin(dataDir: string, name: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  delete env.DATABASE_URL;
  return spawnSync(TSX, ['src/main/admin.ts', 'business', 'create', '--name', name, '--json'], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
}

/** A pid that certainly belongs to no running process: a child that already exited. */
function deadPid(): number {
  const p = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(p.stdout);
}

describe('the lock (happy and error)', () => {
  it('one holder per directory; re-taking in the owner is a no-op; release removes the file', () => {
    const d = join(dir, 'unit');
    const release = acquirePgliteLock(d);
    expect(JSON.parse(readFileSync(lockPath(d), 'utf8')).pid).toBe(process.pid);
    expect(acquirePgliteLock(d)).toBe(release);
    release();
    expect(existsSync(lockPath(d))).toBe(false);
  });

  it('a live owner refuses with who holds it', () => {
    const d = join(dir, 'live-owner');
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      acquirePgliteLock(d)(); // creates the dir
      writeFileSync(lockPath(d), JSON.stringify({ pid: sleeper.pid, start: null, command: 'npm run dev', since: '2026-01-01T00:00:00.000Z' }));
      let err: unknown;
      try {
        acquirePgliteLock(d);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(PgliteLockedError);
      expect((err as Error).message).toContain(`in use by process ${sleeper.pid}`);
      expect((err as Error).message).toContain('DATABASE_URL');
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('a stale lock (dead pid, or a reused pid with another start time) is taken over', () => {
    const d = join(dir, 'stale');
    acquirePgliteLock(d)();
    writeFileSync(lockPath(d), JSON.stringify({ pid: deadPid(), start: null, command: 'npm run dev', since: '2026-01-01T00:00:00.000Z' }));
    acquirePgliteLock(d)();
    // our own pid, but recorded with another start time: a previous process whose pid was reused
    writeFileSync(lockPath(d), JSON.stringify({ pid: process.ppid, start: '1', command: 'old', since: '2026-01-01T00:00:00.000Z' }));
    if (existsSync(`/proc/${process.ppid}/stat`)) acquirePgliteLock(d)();
  });
});

describe('npm run dev and npm run admin on one DATA_DIR (security: one writer)', () => {
  let dev: ChildProcess | undefined;
  afterAll(() => {
    // tsx's child node process is the dev server: stop it too if a step failed half-way
    try {
      process.kill(JSON.parse(readFileSync(lockPath(join(dir, 'dev')), 'utf8')).pid, 'SIGKILL');
    } catch {
      // not running
    }
    dev?.kill('SIGKILL');
  });

  it('admin refuses while dev runs, works after dev stops, and takes over the lock of a killed dev', async () => {
    const dataDir = join(dir, 'dev');
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: `lock-${port}`,
      LOG_LEVEL: 'warn',
    };
    delete env.DATABASE_URL;
    const start = () => {
      const p = spawn(TSX, ['src/main/dev.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      p.stdout!.on('data', (d) => (out += d));
      p.stderr!.on('data', (d) => (out += d));
      const ready = new Promise<void>((res, rej) => {
        const t = setInterval(() => {
          if (out.includes('Payouts backend is running')) {
            clearInterval(t);
            res();
          }
        }, 100);
        p.once('exit', (code) => {
          clearInterval(t);
          rej(new Error(`dev exited ${code}: ${out}`));
        });
      });
      return { p, ready, output: () => out };
    };

    const first = start();
    dev = first.p;
    await first.ready;
    // tsx runs the script in a child node process: that process is the owner
    const owner = JSON.parse(readFileSync(lockPath(dataDir), 'utf8'));
    expect(owner.command).toContain('src/main/dev.ts');
    process.kill(owner.pid, 0); // alive

    // admin refuses, with a message naming the dev process, and creates nothing
    const refused = admin(dataDir, 'Refused Co');
    expect(refused.status).toBe(3);
    expect(refused.stderr).toContain(`in use by process ${owner.pid}`);
    expect(refused.stdout).toBe('');

    // a second dev on the same DATA_DIR refuses too (before starting anything)
    const second = spawnSync(TSX, ['src/main/dev.ts'], { cwd: ROOT, env: { ...env, PORT: String(await freePort()) }, encoding: 'utf8', timeout: 120_000 });
    expect(second.status).toBe(3);
    expect(second.stderr).toContain(`in use by process ${owner.pid}`);

    // dev still serves
    const health = await fetch(`http://127.0.0.1:${port}/health`).catch(async () => {
      await new Promise((r) => setTimeout(r, 2000));
      return fetch(`http://127.0.0.1:${port}/health`);
    });
    expect(health.status).toBe(200);

    // SIGKILL dev: its lock is stale and admin takes it over
    const exited = new Promise((r) => first.p.once('exit', r));
    process.kill(owner.pid, 'SIGKILL');
    await exited;
    expect(existsSync(lockPath(dataDir))).toBe(true);
    const ok = admin(dataDir, 'After Kill Co');
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    const created = JSON.parse(ok.stdout);
    expect(created.business_id).toMatch(/^biz_/);
    expect(existsSync(lockPath(dataDir))).toBe(false); // released on exit

    // and the data is intact for the next dev: it starts and the business is there
    const again = start();
    dev = again.p;
    await again.ready;
    const key = JSON.parse(readFileSync(join(dataDir, 'dev-credentials.json'), 'utf8')).keys.sandbox;
    // the banner can come a moment before the socket listens
    let bal: Response | undefined;
    for (let i = 0; i < 50 && !bal; i++) {
      bal = await fetch(`http://127.0.0.1:${port}/sandbox/v1/balance`, { headers: { Authorization: `Bearer ${key}` } }).catch(async () => {
        await new Promise((r) => setTimeout(r, 200));
        return undefined;
      });
    }
    if (!bal) throw new Error('dev does not answer');
    expect(bal.status).toBe(200);
    const againOwner = JSON.parse(readFileSync(lockPath(dataDir), 'utf8'));
    const stopped = new Promise((r) => again.p.once('exit', r));
    process.kill(againOwner.pid, 'SIGINT');
    await stopped;
    expect(existsSync(lockPath(dataDir))).toBe(false); // a clean stop releases it
  }, 300_000);
});
