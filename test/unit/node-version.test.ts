import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSupportedNode, SUPPORTED_NODE_RANGE, unsupportedNodeMessage } from '../../src/main/node-version';

const node20 = existsSync('/usr/bin/node') && /^v20\./.test(spawnSync('/usr/bin/node', ['-v']).stdout?.toString() ?? '');

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

  // The machine's own Node 20 (Debian's), where there is one, with its npm: `npm ci` refuses the
  // project (engine-strict) before it installs anything, naming the supported versions.
  it.skipIf(!node20 || !existsSync('/usr/bin/npm'))('npm ci on Node 20 fails, naming Node 22 and 24', () => {
    const dir = mkdtempSync(join(tmpdir(), 'i40-npm-ci-'));
    try {
      for (const f of ['package.json', 'package-lock.json', '.npmrc']) copyFileSync(f, join(dir, f));
      const r = spawnSync('/usr/bin/npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
        // Without the npm_config_* of an enclosing `npm run -s` (its loglevel=silent would hide the error).
        env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_/i.test(k))), PATH: '/usr/bin:/bin' },
      });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('EBADENGINE');
      expect(r.stderr).toContain(`Required: {"node":"${SUPPORTED_NODE_RANGE}"}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // The machine's own Node 20 (Debian's), where there is one: `npm run dev` stops with one line.
  it.skipIf(!node20)(
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
