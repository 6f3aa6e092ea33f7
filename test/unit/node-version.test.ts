import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isSupportedNode, SUPPORTED_NODE_RANGE, unsupportedNodeMessage } from '../../src/main/node-version';

/** Issue #40 "The runtime refused clearly": npm ci (engine-strict) and npm run dev stop on Node 20 with one line. */
describe('supported Node.js releases', () => {
  it('are the range of package.json engines, which npm ci enforces (engine-strict in .npmrc)', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(pkg.engines.node).toBe(SUPPORTED_NODE_RANGE);
    expect(readFileSync('.npmrc', 'utf8')).toMatch(/^engine-strict=true$/m);
  });

  it('22.12 and later 22s, and 24, are supported; 20, 22.11 and 23 are not', () => {
    for (const v of ['22.12.0', '22.20.1', '24.0.0', '24.21.0']) expect(isSupportedNode(v)).toBe(true);
    for (const v of ['20.20.2', '22.11.0', '23.1.0', '18.0.0', '25.0.0']) expect(isSupportedNode(v)).toBe(false);
  });

  // The machine's own Node 20 (Debian's), where there is one: `npm run dev` stops with one line.
  it.skipIf(!existsSync('/usr/bin/node') || !/^v20\./.test(spawnSync('/usr/bin/node', ['-v']).stdout?.toString() ?? ''))(
    'npm run dev on Node 20 prints one line naming Node 22 and 24 and exits 1',
    () => {
      const r = spawnSync('/usr/bin/node', ['--import', 'tsx', 'src/main/dev.ts'], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, DATA_DIR: '/nonexistent/i40' } });
      expect(r.status).toBe(1);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toEqual([unsupportedNodeMessage(spawnSync('/usr/bin/node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim())]);
      expect(lines[0]).toMatch(/Node\.js 22 .* or 24/);
    },
  );
});
