import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import puppeteer, { type Browser } from 'puppeteer-core';
import type { Harness } from './harness';

/**
 * Real headless Chromium for page tests. A page a person sees (claim, receipt, payment link,
 * checkout, docs) is tested here, not only by fetching its HTML. The browser is found without any
 * setup (docs/api-keys.md "A test command that works on a fresh machine"), in this order:
 * 1. `CHROMIUM_PATH`, when set;
 * 2. the system's: `chromium`, `chromium-browser` or `google-chrome` on PATH (Debian's `chromium`,
 *    which .ci/run installs);
 * 3. the one the npm package `@sparticuz/chromium` ships (a pinned devDependency): it unpacks a
 *    headless Chromium to the temp directory once per machine (`/tmp/chromium`), then reuses it.
 * `CHROMIUM_SKIP_SYSTEM=1` skips step 2; it exists only to prove step 3 on a machine that has a
 * system Chromium (`CHROMIUM_SKIP_SYSTEM=1 npx vitest run test/api/docs.test.ts ...`).
 */

/** Which Chromium to launch, and the extra flags that build needs. */
export interface ChromiumChoice {
  /** Absolute path of the executable. */
  path: string;
  /** Where it came from. */
  source: 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium';
  /** Flags the build needs besides ours (the packaged build's own, less those that would weaken what page tests check). */
  args: string[];
}

/** The system's Chromium on PATH (`chromium`, `chromium-browser`, `google-chrome`), or null. */
function systemChromium(): string | null {
  if (process.env.CHROMIUM_SKIP_SYSTEM === '1') return null;
  try {
    const found = execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser || command -v google-chrome'], { encoding: 'utf8' }).trim();
    return found || null;
  } catch {
    return null;
  }
}

/**
 * Runs `fn` while holding a lock directory (mkdir is atomic), so parallel test files never unpack
 * the packaged Chromium over each other. A lock older than two minutes is a dead holder's and is taken over.
 */
async function withLock<T>(lock: string, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        // gone meanwhile: try again
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * The Chromium of `@sparticuz/chromium`: unpacked once into the temp directory under a lock, with a
 * marker naming the package version written only after a complete unpack, so a run killed
 * mid-unpack (or another version's leftovers) is unpacked again rather than launched half-written.
 */
async function packagedChromium(): Promise<ChromiumChoice> {
  const { default: chromium } = await import('@sparticuz/chromium');
  // The package's exports hide its package.json: read it beside the resolved entry (build/index.js).
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const version = (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;
  const marker = join(tmpdir(), 'chromium.unpacked-version');
  const ready = () => existsSync(marker) && readFileSync(marker, 'utf8') === version && existsSync(join(tmpdir(), 'chromium'));
  if (!ready()) {
    await withLock(join(tmpdir(), 'chromium.unpack-lock'), async () => {
      if (ready()) return;
      rmSync(join(tmpdir(), 'chromium'), { force: true });
      await chromium.executablePath();
      writeFileSync(marker, version);
    });
  }
  // --disable-web-security and --allow-running-insecure-content would hide what the page tests
  // check (CSP, same-origin); our own flags (launchBrowser) already cover --no-sandbox.
  const weakening = new Set(['--disable-web-security', '--allow-running-insecure-content']);
  return { path: await chromium.executablePath(), source: '@sparticuz/chromium', args: chromium.args.filter((a) => !weakening.has(a)) };
}

let choice: Promise<ChromiumChoice> | undefined;

/** The Chromium page tests launch: `CHROMIUM_PATH`, else the system's, else `@sparticuz/chromium`'s (see the module docstring). */
export function findChromium(): Promise<ChromiumChoice> {
  choice ??= (async (): Promise<ChromiumChoice> => {
    if (process.env.CHROMIUM_PATH) return { path: process.env.CHROMIUM_PATH, source: 'CHROMIUM_PATH', args: [] };
    const system = systemChromium();
    if (system) return { path: system, source: 'system', args: [] };
    return packagedChromium();
  })();
  return choice;
}

/**
 * Launches headless Chromium with a fresh profile and every background connection off (this
 * machine has no internet; see .ci/run). Close it with `close()`; the profile is removed then.
 */
export async function launchBrowser(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const found = await findChromium();
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  const ours = [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
  ];
  const browser = await puppeteer.launch({
    executablePath: found.path,
    headless: true,
    userDataDir: profile,
    args: [...ours, ...found.args.filter((a) => !ours.includes(a) && !a.startsWith('--headless'))],
  });
  return {
    browser,
    close: async () => {
      await browser.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Serves the harness's app on a real loopback port (pages need a real origin for Chromium).
 * Returns its origin (`http://127.0.0.1:<port>`) and a `close()`.
 */
export async function serveHarness(h: Harness): Promise<{ origin: string; close: () => Promise<void> }> {
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: h.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
