/**
 * The screening service (docs/screening.md): with OFAC's CSV set loaded (the moov-io/watchman
 * Go module's snapshot, tools/screening/ofac-testdata.ts), "BANCO NACIONAL DE CUBA" is a potential
 * match and ordinary names are clear; every screening is recorded with the list versions it used;
 * a list past its maximum age makes screening `unavailable`; a failed refresh keeps the last good
 * version; the sandbox's magic names give each outcome.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsRegistry } from '../../../src/core/metrics/registry';
import { currentListVersions } from '../../../src/core/screening/lists';
import { ScreeningService } from '../../../src/core/screening/service';
import type { Db } from '../../../src/db/schema';
import { screeningConfig } from '../../../src/screening/index';
import { ofacTestdataDir, ofacTestdataMissing } from '../../../tools/screening/ofac-testdata';
import { freshDatabase } from '../../helpers/fresh-database';

let db: Db;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ db, close } = await freshDatabase());
});
afterAll(() => close());

const OFAC = ofacTestdataDir();

describe.skipIf(!OFAC)(`with the OFAC SDN CSV set loaded${OFAC ? '' : ` (skipped: ${ofacTestdataMissing})`}`, () => {
  let service: ScreeningService;
  beforeAll(async () => {
    service = new ScreeningService(db, screeningConfig({ SCREENING_LISTS: 'ofac-sdn-csv', SCREENING_OFAC_SDN_CSV_DIR: OFAC! }));
    const [r] = await service.refresh({ force: true });
    expect(r).toMatchObject({ ok: true, changed: true, version: { list: 'ofac-sdn-csv' } });
  }, 60_000);

  it('"BANCO NACIONAL DE CUBA" is a potential match with score and entry; the screening is recorded with the list version', async () => {
    const r = await service.screen({ name: 'BANCO NACIONAL DE CUBA', kind: 'entity' }, { reference: 'po_test' });
    expect(r.outcome).toBe('potential_match');
    expect(r.hits[0]).toMatchObject({ list: 'ofac-sdn-csv', entryId: '306', entryName: 'BANCO NACIONAL DE CUBA', programs: ['CUBA'], score: 1, confirmed: false });
    const version = r.listVersions[0]!;
    expect(version).toMatchObject({ list: 'ofac-sdn-csv', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const row = await db.selectFrom('screenings').selectAll().where('id', '=', r.screeningId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ outcome: 'potential_match', subject_name: 'BANCO NACIONAL DE CUBA', reference: 'po_test', list_versions: [{ list: 'ofac-sdn-csv', version_id: version.versionId }] });
    expect((row.hits as unknown as { entryId: string }[])[0]!.entryId).toBe('306');
  });

  it('"Maria Garcia Lopez" and "Acme Corp Ltd" are clear', async () => {
    expect((await service.screen({ name: 'Maria Garcia Lopez', kind: 'individual' })).outcome).toBe('clear');
    expect((await service.screen({ name: 'Acme Corp Ltd', kind: 'entity' })).outcome).toBe('clear');
    expect((await service.screen({ name: 'Maria Garcia Lopez' })).outcome).toBe('clear');
  });

  it('a date of birth that differs clears a person the name alone would hold; with a matching passport it is confirmed', async () => {
    expect((await service.screen({ name: 'Ayman al-Zawahiri', kind: 'individual' })).outcome).toBe('potential_match');
    expect((await service.screen({ name: 'Ayman al-Zawahiri', kind: 'individual', dateOfBirth: '1980-02-03' })).outcome).toBe('clear');
    const confirmed = await service.screen({ name: 'Ayman al Zawahiri', kind: 'individual', dateOfBirth: '1951-06-19', identifiers: [{ type: 'passport', value: '1084010' }] });
    expect(confirmed.outcome).toBe('confirmed_match');
  });

  it('loading the same content again only confirms the version (no new row)', async () => {
    const [r] = await service.refresh({ force: true });
    expect(r).toMatchObject({ ok: true, changed: false });
    expect(await db.selectFrom('screening_list_versions').select('id').where('list', '=', 'ofac-sdn-csv').execute()).toHaveLength(1);
  });
});

describe('fail closed and refresh', () => {
  let now = new Date('2026-11-28T10:00:00Z');
  // A list of its own id space: the UN file under the UN module, in a directory the test breaks.
  const unDir = mkdtempSync(join(tmpdir(), 'screening-un-'));
  writeFileSync(join(unDir, 'consolidated.xml'), readFileSync(join(import.meta.dirname, '../../fixtures/screening/consolidated.xml')));
  const config = screeningConfig({ SCREENING_LISTS: 'un-sc', SCREENING_UN_SC_DIR: unDir, SCREENING_UN_SC_MAX_AGE_HOURS: '24', SCREENING_MIN_SCORE: '0.9' });
  const service = () => new ScreeningService(db, config, { now: () => now });

  it('answers unavailable when no list is configured: nothing is ever screened against nothing', async () => {
    const none = new ScreeningService(db, screeningConfig({ SCREENING_LISTS: '' }));
    expect(await none.screen({ name: 'Anyone' })).toMatchObject({ outcome: 'unavailable', reasons: ['no sanctions list is configured (SCREENING_LISTS)'] });
  });

  it('answers unavailable before the list was ever loaded, and records that screening', async () => {
    const s = service();
    await s.sync();
    const r = await s.screen({ name: 'Kim Test Sung', kind: 'individual' });
    expect(r).toMatchObject({ outcome: 'unavailable', reasons: ['list un-sc has never been loaded'] });
    expect(s.status().available).toBe(false);
  });

  it('a failed refresh keeps the last good version; past its maximum age screening is unavailable; a fresh load recovers without a restart', async () => {
    const s = service();
    const [first] = await s.refresh({ force: true });
    expect(first).toMatchObject({ ok: true });
    expect((await s.screen({ name: 'Kim Test Sung', kind: 'individual' })).outcome).toBe('potential_match');

    writeFileSync(join(unDir, 'consolidated.xml'), '<CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL>'); // a broken download
    now = new Date(now.getTime() + 2 * 3600_000);
    const [failed] = await s.refresh({ force: true });
    expect(failed).toMatchObject({ ok: false, list: 'un-sc', error: expect.stringMatching(/well-formed/) });
    const [current] = await currentListVersions(db, ['un-sc']);
    expect(current!.id).toBe(first!.ok && first!.version.id);
    expect((await s.screen({ name: 'Kim Test Sung', kind: 'individual' })).outcome).toBe('potential_match');
    expect(s.status()).toMatchObject({ available: true, lists: [{ list: 'un-sc', stale: false, lastError: expect.stringMatching(/well-formed/) }] });

    now = new Date(now.getTime() + 23 * 3600_000); // 25 h after the last good fetch, maximum 24 h
    const stale = await s.screen({ name: 'Maria Garcia Lopez', kind: 'individual' });
    expect(stale).toMatchObject({ outcome: 'unavailable', reasons: [expect.stringMatching(/un-sc was last fetched 25 h ago, beyond its maximum age of 24 h/)] });
    expect(await metricsRegistry.getSingleMetricAsString('screening_list_age_seconds')).toMatch(/screening_list_age_seconds\{list="un-sc"\} 90000/);

    writeFileSync(join(unDir, 'consolidated.xml'), readFileSync(join(import.meta.dirname, '../../fixtures/screening/consolidated.xml')));
    const [again] = await s.refresh({ force: true });
    expect(again).toMatchObject({ ok: true, changed: false });
    expect((await s.screen({ name: 'Maria Garcia Lopez', kind: 'individual' })).outcome).toBe('clear');
    expect(await metricsRegistry.getSingleMetricAsString('screenings_total')).toMatch(/screenings_total\{outcome="unavailable"\} [1-9]/);
  });

  it('another process loads the current version at its sync, without fetching', async () => {
    const other = service();
    expect(await other.sync()).toEqual(['un-sc']);
    const [current] = await currentListVersions(db, ['un-sc']);
    expect(other.status().lists[0]).toMatchObject({ versionId: current!.id, stale: false });
    expect(await other.sync()).toEqual([]); // unchanged: nothing reloaded
  });
});

describe('sandbox', () => {
  let s: ScreeningService;
  beforeAll(async () => {
    s = new ScreeningService(db, screeningConfig({ SCREENING_LISTS: 'sandbox' }));
    await s.refresh({ force: true });
  });

  it('its magic names give each outcome with the same code', async () => {
    expect((await s.screen({ name: 'Jane Doe', kind: 'individual' })).outcome).toBe('clear');
    expect((await s.screen({ name: 'Sandy Sanctioned', kind: 'individual' })).outcome).toBe('potential_match');
    expect((await s.screen({ name: 'Sandi Sanctioned', kind: 'individual' })).outcome).toBe('potential_match');
    expect((await s.screen({ name: 'Sandbox Sanctioned Trading Ltd', kind: 'entity' })).outcome).toBe('potential_match');
    expect((await s.screen({ name: 'Connor Confirmed', kind: 'individual' })).outcome).toBe('potential_match');
    expect((await s.screen({ name: 'Connor Confirmed', kind: 'individual', dateOfBirth: '1970-01-01' })).outcome).toBe('confirmed_match');
    expect((await s.screen({ name: 'Connor Confirmed', kind: 'individual', identifiers: [{ value: 'SBX0000001' }] })).outcome).toBe('confirmed_match');
    expect((await s.screen({ name: 'Connor Confirmed', kind: 'individual', dateOfBirth: '1985-07-07' })).outcome).toBe('clear');
  });
});
