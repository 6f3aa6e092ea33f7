import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import puppeteer, { type Browser } from 'puppeteer-core';
import type { Harness } from './harness';

/**
 * Real headless Chromium for page tests (Debian's `chromium`, installed by .ci/run). A page a person
 * sees (claim, receipt, payment link, checkout, docs) is tested here, not only by fetching its HTML.
 */

/** Path of the Chromium binary: `CHROMIUM_PATH`, else `chromium` on PATH; throws when there is none. */
export function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('Chromium not found: install Debian\'s chromium package (.ci/run does) or set CHROMIUM_PATH');
  }
}

/**
 * Launches headless Chromium with a fresh profile and every background connection off (this
 * machine has no internet; see .ci/run). Close it with `close()`; the profile is removed then.
 */
export async function launchBrowser(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  const browser = await puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    userDataDir: profile,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
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
