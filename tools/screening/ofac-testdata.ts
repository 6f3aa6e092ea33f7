/**
 * The OFAC SDN CSV set the screening tests load (docs/screening.md "Test data"): the copy inside
 * the moov-io/watchman Go module (`pkg/sources/ofac/testdata`: sdn.csv, add.csv, alt.csv,
 * sdn_comments.csv, a faithful snapshot of OFAC's files), fetched through the Go module proxy with
 * `go mod download` into the Go module cache; never committed here.
 *
 * `npx tsx tools/screening/ofac-testdata.ts` prints the directory. {@link ofacTestdataDir} returns
 * null where Go is missing or the download fails (tests skip, saying why) unless
 * REQUIRE_SCREENING_TESTDATA=1, where it throws.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The pinned watchman version (the first with `pkg/sources/ofac/testdata`; `@latest` is refused by the proxy). */
export const WATCHMAN_MODULE = 'github.com/moov-io/watchman@v0.60.0';

/** Why the test data is unavailable, after {@link ofacTestdataDir} returned null. */
export let ofacTestdataMissing = '';

/** The directory holding the OFAC CSV set, or null (see the module comment). */
export function ofacTestdataDir(): string | null {
  try {
    const out = execFileSync('go', ['mod', 'download', '-json', WATCHMAN_MODULE], { cwd: tmpdir(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
    const info = JSON.parse(out) as { Dir?: string; Error?: string };
    if (!info.Dir) throw new Error(info.Error ?? 'go mod download printed no Dir');
    const dir = join(info.Dir, 'pkg/sources/ofac/testdata');
    if (!existsSync(join(dir, 'sdn.csv'))) throw new Error(`${dir}/sdn.csv is missing`);
    return dir;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stdout?: string };
    ofacTestdataMissing =
      e.code === 'ENOENT' ? 'Go is not installed (needed to fetch the OFAC test data from the Go module proxy)' : `go mod download ${WATCHMAN_MODULE} failed: ${e.stdout || e.message}`;
    if (process.env['REQUIRE_SCREENING_TESTDATA'] === '1') throw new Error(ofacTestdataMissing);
    return null;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = ofacTestdataDir();
  if (!dir) {
    console.error(ofacTestdataMissing);
    process.exit(1);
  }
  console.log(dir);
}
