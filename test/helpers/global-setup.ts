import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type DevServer, startDevServer } from '../../src/temporal/dev-server';
import { writeWorkflowBundle } from '../../src/temporal/bundle';

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
 * workflows once. TEST_NO_INFRA=1 skips both (pure unit tests).
 */
export default async function setup(project: TestProject) {
  if (process.env.TEST_NO_INFRA === '1') {
    project.provide('temporalAddress', '');
    project.provide('workflowBundlePath', '');
    return;
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

