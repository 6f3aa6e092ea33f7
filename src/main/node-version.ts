/**
 * Stops a process started on a Node.js release the project does not support, with one line naming
 * the supported ones (README "Requirements"; package.json `engines`, which `npm ci` enforces through
 * `.npmrc` `engine-strict=true`). Imported first by the entry points (src/main/dev.ts, api.ts,
 * worker.ts), so its check runs before any other module is loaded.
 */

/** package.json `engines.node`: Node 22 from 22.12, or Node 24 (test/unit/node-version.test.ts keeps them equal). */
export const SUPPORTED_NODE_RANGE = '^22.12.0 || ^24.0.0';

/** Whether Node `version` (`process.versions.node`, e.g. `24.21.0`) is in {@link SUPPORTED_NODE_RANGE}. */
export function isSupportedNode(version: string): boolean {
  const [major, minor] = version.split('.').map(Number);
  return (major === 22 && minor >= 12) || major === 24;
}

/** The one line printed on an unsupported Node.js. */
export function unsupportedNodeMessage(version: string): string {
  return `This service needs Node.js 22 (22.12 or later) or 24; this is Node.js ${version}. Install Node 24 (the current LTS) and run the command again.`;
}

if (!isSupportedNode(process.versions.node)) {
  console.error(unsupportedNodeMessage(process.versions.node));
  process.exit(1);
}
