import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * The docs are executable (issue #40; the convention is written in README "Your first payout" and
 * at the head of each quick start): every shell block (```sh or ```bash) of the README and of the
 * quick starts runs, in order, in one bash per document, against a service this test starts (the
 * real app, worker and relay on PGlite or PostgreSQL, served over HTTP on 127.0.0.1). Like a reader,
 * the test changes only the placeholders the docs name: `sk_test_...` becomes the sandbox key and
 * `http://localhost:3000` the service's address; every id is taken from the previous answer by the
 * docs' own `jq`. The block that starts the service (`npm ci && npm run dev`, README's first) is
 * this test's service. A block whose first line starts `# keep running` is a command a reader
 * leaves running in another terminal (`npm run listen`): it runs in the background, must print a
 * line starting `Ready` within 60 s, and gets Ctrl-C (SIGINT to its process group) at the end.
 *
 * Fails on any non-2xx answer (curl runs with --fail-with-body, the script with `set -e -o
 * pipefail`) and unless the script's last output line is the state the document names in its last
 * `# => <state>` comment. Blocks marked `sh` must also be POSIX sh (`sh -n`, dash on Debian).
 */

interface Doc {
  file: string;
  /** What else the doc's run must show, checked after it. */
  check?: (out: { stdout: string; background: string }) => void;
}

const DOCS: Doc[] = [
  {
    file: 'README.md',
    check: ({ background }) => {
      // npm run listen printed the first payout's payout.succeeded, its signature verified.
      expect(background).toMatch(/ A {2}payout\.succeeded +po_\S+ succeeded {2}verified evt_/);
      expect(background).toMatch(/Surface A: endpoint we_\S+ deleted/);
    },
  },
  { file: 'docs/integration.md' },
  { file: 'docs/surface-b.md' },
  { file: 'docs/surface-c.md' },
  { file: 'docs/disbursements.md' },
];

interface Block {
  lang: 'sh' | 'bash';
  code: string;
}

/** The ```sh and ```bash blocks of a Markdown file, in order. */
function shellBlocks(markdown: string): Block[] {
  const out: Block[] = [];
  const re = /^```(sh|bash)[^\n]*\n([\s\S]*?)^```\s*$/gm;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) out.push({ lang: m[1] as 'sh' | 'bash', code: m[2] });
  return out;
}

const hasJq = spawnSync('jq', ['--version']).status === 0;
const hasSh = existsSync('/bin/sh');

let h: Harness;
let server: ServerType;
let url: string;
let key: string;

beforeAll(async () => {
  // The sandbox's own arrival time (0.2 s, the default), so the docs' waits are tested as written.
  h = await createHarness({ env: { SANDBOX_ARRIVAL: 'PT0.2S' } });
  key = (await h.business()).sandbox;
  server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await h?.close();
});

const substitute = (code: string) => code.replaceAll('sk_test_...', key).replaceAll('http://localhost:3000', url);

/** Runs a bash script; resolves with its exit code and output. */
function run(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { env, cwd: process.cwd() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a keep-running block in its own process group; resolves once it printed `ready` (or exited). */
function startBackground(code: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn('bash', ['-c', code], { env, cwd: process.cwd(), detached: true });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`background block not ready after 60 s:\n${code}\n${output}`)), 60_000);
    const check = () => {
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (c) => {
      clearTimeout(timer);
      reject(new Error(`background block exited (${c}) before it was ready:\n${code}\n${output}`));
    });
  });
}

/** Ctrl-C: SIGINT to the block's process group; resolves when it has exited. */
function interrupt(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGINT');
    setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    }, 15_000).unref();
  });
}

describe.skipIf(!hasJq && process.env.CI !== 'true')('the README and the quick starts run to the end (issue #40)', () => {
  if (!hasJq) console.warn('docs-executable: jq is missing (Debian package jq); the quick starts use it, so this test is skipped');

  for (const doc of DOCS) {
    it(`${doc.file}: every shell block runs, each request answers 2xx, and it ends in the state it names`, { timeout: 120_000 }, async () => {
      const started = Date.now();
      const markdown = readFileSync(doc.file, 'utf8');
      const blocks = shellBlocks(markdown);
      expect(blocks.length, `${doc.file} has shell blocks`).toBeGreaterThan(0);
      const states = [...markdown.matchAll(/# => (\S+)/g)].map((m) => m[1]);
      expect(states.length, `${doc.file} names its final state with "# => <state>"`).toBeGreaterThan(0);
      const finalState = states[states.length - 1];

      if (hasSh) {
        for (const b of blocks.filter((x) => x.lang === 'sh')) {
          const syntax = spawnSync('sh', ['-n'], { input: b.code, encoding: 'utf8' });
          expect(syntax.status, `a block marked sh in ${doc.file} is not POSIX sh (${syntax.stderr}):\n${b.code}`).toBe(0);
        }
      }

      const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, API: url };
      const background: { child: ChildProcess; output: () => string }[] = [];
      const foreground: string[] = [];
      for (const b of blocks) {
        const code = substitute(b.code);
        // A block that starts the service (README's first) is this test's own service.
        if (/^npm ci && npm run dev\b/m.test(code)) continue;
        if (!/^# keep running/.test(code)) {
          foreground.push(code);
          continue;
        }
        expect(foreground, `${doc.file}: a "# keep running" block comes before the blocks that need it`).toEqual([]);
        background.push(await startBackground(code, env, /^Ready/m));
      }

      const script = ['set -e -o pipefail', 'curl() { command curl --fail-with-body --show-error "$@"; }', ...foreground].join('\n');
      let result: Awaited<ReturnType<typeof run>>;
      try {
        result = await run(script, env);
        // Let the last events reach the listener before Ctrl-C.
        if (background.length) await new Promise((r) => setTimeout(r, 1500));
      } finally {
        for (const bg of background) await interrupt(bg.child);
      }
      const backgroundOutput = background.map((b) => b.output()).join('\n');
      const where = `${doc.file}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}\n--- background\n${backgroundOutput}`;
      expect(result.code, `the script stopped (a non-2xx answer or a failed command): ${where}`).toBe(0);
      const lines = result.stdout.trim().split('\n');
      expect(lines[lines.length - 1]?.trim(), `final state of ${where}`).toBe(finalState);
      doc.check?.({ stdout: result.stdout, background: backgroundOutput });
      console.log(`docs-executable: ${doc.file} ran to "${finalState}" in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    });
  }
});
