/**
 * The self-hosted Temporal server, built from its Go module (docs/operations.md "Running Temporal
 * in production"): `go.temporal.io/server` at {@link TEMPORAL_SERVER_VERSION}, its server binary
 * (`cmd/server`) and its schema tool (`cmd/tools/sql`, temporal-sql-tool), and the module's
 * PostgreSQL schema files. Built once into the git-ignored `.tools/temporal-server/<version>/` and
 * reused: the stamp file there (version, Go version) decides whether to rebuild.
 *
 * `go install <pkg>@<version>` can fail on these machines on a version-list lookup, so the build
 * uses a throwaway module that requires the pinned version, then `go build`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The pinned server version (one minor version at a time when upgrading: docs/runbooks.md). */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';

const ROOT = resolve(import.meta.dirname, '..', '..');
/** Install directory of this version's binaries, schema and stamp. */
export const SERVER_DIR = join(ROOT, '.tools', 'temporal-server', TEMPORAL_SERVER_VERSION);

/** What a built server installation holds. */
export interface TemporalServerInstall {
  /** The server binary (`temporal-server ... start`). */
  server: string;
  /** The schema tool (`temporal-sql-tool`). */
  sqlTool: string;
  /** `schema/postgresql/v12` of the module: `temporal/versioned`, `visibility/versioned`. */
  schemaDir: string;
  /** The stamp written after the build (version, Go version, build seconds, peak memory in MB). */
  stamp: BuildStamp;
}

/** Written next to the binaries after a successful build. */
export interface BuildStamp {
  version: string;
  go: string;
  builtAt: string;
  /** Wall-clock seconds of the build (module download included). */
  seconds: number;
  /** Peak resident memory of the largest `go build`, in MB (GNU time), when measured. */
  peakMb: number | null;
}

function goVersion(): string {
  return execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim();
}

function readStamp(): BuildStamp | null {
  try {
    return JSON.parse(readFileSync(join(SERVER_DIR, 'stamp.json'), 'utf8')) as BuildStamp;
  } catch {
    return null;
  }
}

function installed(): TemporalServerInstall | null {
  const stamp = readStamp();
  const server = join(SERVER_DIR, 'bin', 'temporal-server');
  const sqlTool = join(SERVER_DIR, 'bin', 'temporal-sql-tool');
  const schemaDir = join(SERVER_DIR, 'schema', 'postgresql', 'v12');
  if (!stamp || stamp.version !== TEMPORAL_SERVER_VERSION) return null;
  if (![server, sqlTool, schemaDir].every((p) => existsSync(p))) return null;
  return { server, sqlTool, schemaDir, stamp };
}

/**
 * The installed server of the pinned version, building it first when missing or stale (about 8
 * minutes and 1.6 GB of memory on a 2-core machine: docs/operations.md). Throws when Go is missing
 * or the build fails, with the build's output.
 */
export function resolveTemporalServer(opts: { build?: boolean; force?: boolean; log?: (l: string) => void } = {}): TemporalServerInstall {
  const log = opts.log ?? ((l: string) => console.error(l));
  const found = opts.force ? null : installed();
  if (found) return found;
  if (opts.build === false) throw new Error(`Temporal server ${TEMPORAL_SERVER_VERSION} is not built; run \`npm run temporal:install -- --server\``);
  const work = join(ROOT, '.tools', 'temporal-server', 'build');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'go.mod'), `module temporal-server-build\n\ngo 1.24\n\nrequire go.temporal.io/server ${TEMPORAL_SERVER_VERSION}\n`);
  writeFileSync(
    join(work, 'tools.go'),
    '//go:build tools\n\npackage tools\n\nimport (\n\t_ "go.temporal.io/server/cmd/server"\n\t_ "go.temporal.io/server/cmd/tools/sql"\n)\n',
  );
  const env = { ...process.env, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' };
  const run = (args: string[], timed = false): number | null => {
    const withTime = timed && existsSync('/usr/bin/time');
    const cmd = withTime ? '/usr/bin/time' : 'go';
    const full = withTime ? ['-f', 'peak-kb=%M', 'go', ...args] : args;
    const r = spawnSync(cmd, full, { cwd: work, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`go ${args.join(' ')} failed (${r.status}):\n${(r.stdout ?? '') + (r.stderr ?? '')}`.slice(-8000));
    const m = /peak-kb=(\d+)/.exec(r.stderr ?? '');
    return m ? Math.round(Number(m[1]) / 1024) : null;
  };
  const t0 = Date.now();
  log(`Building Temporal server ${TEMPORAL_SERVER_VERSION} from the Go module proxy into ${SERVER_DIR} (several minutes) ...`);
  run(['mod', 'tidy']);
  const bin = join(SERVER_DIR, 'bin');
  mkdirSync(bin, { recursive: true });
  const peak1 = run(['build', '-o', join(bin, 'temporal-server'), 'go.temporal.io/server/cmd/server'], true);
  const peak2 = run(['build', '-o', join(bin, 'temporal-sql-tool'), 'go.temporal.io/server/cmd/tools/sql'], true);
  const modDir = execFileSync('go', ['list', '-m', '-f', '{{.Dir}}', 'go.temporal.io/server'], { cwd: work, env, encoding: 'utf8' }).trim();
  rmSync(join(SERVER_DIR, 'schema'), { recursive: true, force: true });
  cpSync(join(modDir, 'schema', 'postgresql'), join(SERVER_DIR, 'schema', 'postgresql'), { recursive: true });
  const peaks = [peak1, peak2].filter((p): p is number => p !== null);
  const stamp: BuildStamp = {
    version: TEMPORAL_SERVER_VERSION,
    go: goVersion(),
    builtAt: new Date().toISOString(),
    seconds: Math.round((Date.now() - t0) / 1000),
    peakMb: peaks.length ? Math.max(...peaks) : null,
  };
  writeFileSync(join(SERVER_DIR, 'stamp.json'), `${JSON.stringify(stamp, null, 2)}\n`);
  rmSync(work, { recursive: true, force: true });
  log(`Temporal server ${TEMPORAL_SERVER_VERSION} built in ${stamp.seconds} s (peak ${stamp.peakMb ?? '?'} MB)`);
  const done = installed();
  if (!done) throw new Error('Temporal server build finished but its files are missing');
  return done;
}
