/** Stops a process on an unsupported Node.js with one line (docs/configuration.md "Requirements"); imported first by the entry points. */

/** package.json `engines.node` (test/unit/node-version.test.ts keeps them equal). */
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
