import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderServedDocuments } from './served-documents';

/**
 * `npx tsx tools/openapi-lint.ts` (CI, after client:check): Redocly's lint (`@redocly/cli`, pinned
 * devDependency) of every OpenAPI document the service serves, rendered in process (no server,
 * no database, no Temporal; tools/served-documents.ts), each written to a temporary file and
 * linted with the repository's `redocly.yaml` (the recommended ruleset; the few rules turned off
 * say why there). Exits 1 when any document has an error. Redocly's telemetry and update check
 * are off (CI has no internet).
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
let status = 0;
try {
  const files: string[] = [];
  for (const { ref, document } of await renderServedDocuments()) {
    const file = join(dir, `${ref.id}.json`);
    writeFileSync(file, JSON.stringify(document, null, 2));
    files.push(file);
  }
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', '--config', join(ROOT, 'redocly.yaml'), '--format', 'stylish', ...files],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' } },
  );
  status = r.status ?? 1;
  console.log(status === 0 ? `openapi-lint: ${files.length} documents, no errors` : `openapi-lint: errors (exit ${status})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status);
