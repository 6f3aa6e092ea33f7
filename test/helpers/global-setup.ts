import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type DevServer, startDevServer } from '../../src/temporal/dev-server';
import { writeWorkflowBundle } from '../../src/temporal/bundle';
import { installStripeMock, resolveStripeMock } from '../../tools/test-card-processor/stripe-mock';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
  }
}

let server: DevServer | undefined;
let dir: string | undefined;

/**
 * Starts one headless Temporal dev server (unless TEMPORAL_ADDRESS is set) and bundles the
 * workflows once; builds the pinned stripe-mock with Go when it is nowhere yet (the card tests' test
 * processor forwards to it; docs/configuration.md "Install details"). TEST_NO_INFRA=1 skips all three.
 */
export default async function setup(project: TestProject) {
  if (process.env.TEST_NO_INFRA === '1') {
    project.provide('temporalAddress', '');
    project.provide('workflowBundlePath', '');
    return;
  }
  try {
    resolveStripeMock();
  } catch {
    console.log('stripe-mock: not found; building the pinned one with `go install` (once per checkout)');
    installStripeMock();
  }
  let address = process.env.TEMPORAL_ADDRESS;
  if (!address) {
    server = await startDevServer({ headless: true });
    address = server.address;
  }
  dir = mkdtempSync(join(tmpdir(), 'payouts-bundle-'));
  const path = await writeWorkflowBundle(join(dir, 'workflow-bundle.js'));
  project.provide('temporalAddress', address);
  project.provide('workflowBundlePath', path);
  return async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}

