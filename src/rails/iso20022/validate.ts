/** XSD validation with libxml2 (`xmllint-wasm`, or system `xmllint` over 1 MiB: docs/rails.md "Bank files at scale"). */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { iso20022Tools, loadSchema, PINNED_SCHEMAS, schemaDir } from './schemas';
import { sepaPain001RuleErrors } from './sepa-rules';
import type { Iso20022Message } from './xml';

/** Characters; above, `xmllint --stream`. */
const STREAM_VALIDATION_CHARS = 1024 * 1024;
/** 4096 pages of 64 KiB (256 MiB; the library's default is 32 MiB). */
const MAX_MEMORY_PAGES = 4096;

/** `errors`: libxml2's messages (with line numbers) when invalid. */
export interface Iso20022Validation {
  valid: boolean;
  errors: string[];
}

/**
 * Validates `xml` against the official XSD, then a pain.001 against the SEPA rules (errors start
 * `SEPA rule:`). Throws an `Error` when the schema cannot be had (offline and not cached).
 */
export async function validateIso20022(xml: string, message: Iso20022Message): Promise<Iso20022Validation> {
  const schema = await loadSchema(message);
  const large = xml.length > STREAM_VALIDATION_CHARS;
  const binary = large ? systemXmllint() : null;
  if (binary) {
    const running = runXmllint(binary, join(schemaDir(), PINNED_SCHEMAS[message].file), xml);
    const rules = message === 'pain.001.001.09' ? sepaPain001RuleErrors(xml) : [];
    const { valid, errors } = await running;
    if (valid) errors.push(...rules);
    return { valid: valid && errors.length === 0, errors };
  }
  const { validateXML } = await import('xmllint-wasm');
  const result = await validateXML({
    xml: [{ fileName: `${message}.xml`, contents: xml }],
    schema: [{ fileName: PINNED_SCHEMAS[message].file, contents: schema }],
    ...(large ? { stream: true, maxMemoryPages: MAX_MEMORY_PAGES } : {}),
  });
  const errors = result.errors.map((e) => (e.loc ? `line ${e.loc.lineNumber}: ${e.message}` : e.message));
  if (result.valid && message === 'pain.001.001.09') errors.push(...sepaPain001RuleErrors(xml));
  return { valid: result.valid && errors.length === 0, errors };
}

/** Whether each candidate runs (checked once per candidate and process). */
const runs = new Map<string, boolean>();

/** The configured `xmllint` (src/rails/iso20022/schemas.ts `Iso20022Tools`), else `xmllint` on PATH, when it runs. */
function systemXmllint(): string | null {
  const candidate = iso20022Tools().xmllintPath || 'xmllint';
  if (!runs.has(candidate)) runs.set(candidate, spawnSync(candidate, ['--version'], { stdio: 'ignore' }).status === 0);
  return runs.get(candidate) ? candidate : null;
}

/** Messages as `line <n>: <message>`; rejects when it cannot run. A private file, not a pipe: the SEPA rules run meanwhile. */
function runXmllint(binary: string, xsd: string, xml: string): Promise<Iso20022Validation> {
  const dir = mkdtempSync(join(tmpdir(), 'payouts-xmllint-'));
  const file = join(dir, 'document.xml');
  const removeFile = () => rmSync(dir, { recursive: true, force: true });
  try {
    writeFileSync(file, xml, { mode: 0o600 });
  } catch (err) {
    removeFile();
    throw err;
  }
  return new Promise<Iso20022Validation>((resolve, reject) => {
    const p = spawn(binary, ['--noout', '--schema', xsd, file], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0 && code !== 3 && code !== 4) return reject(new Error(`xmllint exited ${code}: ${stderr.slice(0, 500)}`));
      const errors = stderr
        .split('\n')
        .filter((l) => l.trim() && !/ (validates|fails to validate)$/.test(l.trim()))
        .map((l) => {
          const m = /^[^:]*:(\d+): (.*)$/.exec(l);
          return m ? `line ${m[1]}: ${m[2]!.trim()}` : l.trim();
        });
      resolve({ valid: code === 0, errors });
    });
  }).finally(removeFile);
}
