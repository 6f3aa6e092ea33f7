/**
 * Screening's running life (docs/screening.md "Versions and refresh", "Fail closed", "Saved
 * recipients"): the loop stores the built-in list and syncs without fetching; a live list past its
 * maximum age lists live channels `paused` and says why, and a fresh load makes screening available
 * again and signals the payouts waiting `unavailable`; saved recipients are screened on create and
 * update on Surfaces A and C (a confirmed match refused) and screened again when a list changes.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { livePauseReason, screeningPauseReason } from '../../src/core/catalog';
import { metricsRegistry } from '../../src/core/metrics/registry';
import { storeListVersion } from '../../src/core/screening/lists';
import { rescreenRecipients } from '../../src/core/screening/recipient-screening';
import { afterScreeningSync, payoutsWaitingForScreening, recheckWaitingPayouts } from '../../src/core/screening/running';
import { recordScreening } from '../../src/core/screening/screenings';
import { ScreeningService, type SyncReport } from '../../src/core/screening/service';
import { findChannel } from '../../src/domain/channels';
import { screeningConfig } from '../../src/screening/index';
import { unSc } from '../../src/screening/lists/un-sc';
import { createHarness, type Harness } from '../helpers/harness';

// Every live rail answers as working, so a live channel's status depends on screening alone here.
vi.mock('../../src/core/rails/rail-adapters', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/core/rails/rail-adapters')>()),
  liveRailWorking: () => true,
}));

let h: Harness;
let biz: { id: string; sandbox: string; live: string };
const FIXTURE = readFileSync(join(import.meta.dirname, '../fixtures/screening/consolidated.xml'), 'utf8');

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
});
afterAll(async () => h?.close());

/** A live service on the UN list read from a directory the test writes. */
function unService(maxAgeHours = 24): { service: ScreeningService; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'screening-run-'));
  writeFileSync(join(dir, 'consolidated.xml'), FIXTURE);
  const config = screeningConfig({ SCREENING_LISTS: 'un-sc', SCREENING_UN_SC_DIR: dir, SCREENING_UN_SC_MAX_AGE_HOURS: String(maxAgeHours) });
  return { service: new ScreeningService(h.db, config, { environment: 'live' }), dir };
}

/** Runs `service.start` until its first report. */
async function firstTick(service: ScreeningService, fetch: boolean): Promise<SyncReport> {
  const report = await new Promise<SyncReport>((resolve) => service.start({ fetch, everyMs: 60_000, onSync: resolve }));
  service.stop();
  return report;
}

describe('the refresh loop', () => {
  it('without fetching, stores the built-in sandbox list at its first tick and syncs it: available at once', async () => {
    const s = new ScreeningService(h.db, screeningConfig({ SCREENING_LISTS: 'sandbox' }), { environment: 'sandbox' });
    expect(s.status().available).toBe(false);
    const report = await firstTick(s, false);
    expect(report).toEqual({ reloaded: ['sandbox'], available: true, becameAvailable: true });
    expect((await s.screen({ name: 'Sandy Sanctioned' })).outcome).toBe('potential_match');
    expect(await metricsRegistry.getSingleMetricAsString('screening_available')).toMatch(/screening_available\{environment="sandbox"\} 1/);
  });

  it('a process that does not fetch never downloads a list: a configured list nobody loaded stays unavailable', async () => {
    const { service } = unService();
    const report = await firstTick(service, false);
    expect(report).toMatchObject({ reloaded: [], available: false, becameAvailable: false });
    expect(service.status().reasons).toEqual(['list un-sc has never been loaded']);
    expect(await metricsRegistry.getSingleMetricAsString('screening_available')).toMatch(/screening_available\{environment="live"\} 0/);
  });

  it('the fetching process loads it; another process then sees it at its sync', async () => {
    const { service } = unService();
    expect(await firstTick(service, true)).toMatchObject({ reloaded: ['un-sc'], available: true, becameAvailable: true });
    const { service: other } = unService();
    expect(await firstTick(other, false)).toMatchObject({ reloaded: ['un-sc'], available: true });
  });
});

describe('fail closed: a live list past its maximum age', () => {
  const swap = (service: ScreeningService) => {
    const was = h.core.screening.live;
    h.core.screening.live = service;
    return () => (h.core.screening.live = was);
  };

  it('lists live channels paused and says why; a fresh load makes them live and signals the payouts waiting, without a restart', async () => {
    const { service } = unService(24);
    // The only version was fetched 30 h ago.
    const parsed = unSc.parse(new Map([['consolidated.xml', FIXTURE]]));
    const old = await storeListVersion(h.db, { list: 'un-sc', sha256: 'f'.repeat(64), publishedAt: null, source: 'test', entries: parsed.entries, now: new Date(Date.now() - 30 * 3600_000) });
    // a version loaded by the tests above is newer: make this one the only current one
    await h.db.deleteFrom('screening_list_versions').where('list', '=', 'un-sc').where('id', '<>', old.version.id).execute();
    const statuses = async () => ((await h.request('GET', '/v1/channels', { key: biz.live })).body.data as { id: string; status: string }[]).map((c) => `${c.id}:${c.status}`);
    const baseline = await statuses();
    expect(baseline.filter((c) => c.endsWith(':live')).length).toBeGreaterThan(0);
    const restore = swap(service);
    try {
      await service.sync();
      expect(service.status()).toMatchObject({ available: false, reasons: [expect.stringMatching(/un-sc was last fetched 30 h ago, beyond its maximum age of 24 h/)] });

      const listed = await h.request('GET', '/v1/channels', { key: biz.live });
      expect(listed.status).toBe(200);
      const channels = listed.body.data as { id: string; status: string; status_reason: string | null }[];
      expect(channels.length).toBeGreaterThan(0);
      expect(channels.every((c) => c.status === 'paused')).toBe(true);
      // The channel says why (extension status_reason).
      const wasLive = new Set(baseline.filter((c) => c.endsWith(':live')).map((c) => c.split(':')[0]));
      for (const c of channels.filter((x) => wasLive.has(x.id))) expect(c.status_reason).toMatch(/^sanctions screening is unavailable \(list un-sc was last fetched 30 h ago/);
      const sandbox = await h.request('GET', '/sandbox/v1/channels', { key: biz.sandbox });
      expect((sandbox.body.data as { status: string }[]).some((c) => c.status === 'live')).toBe(true);
      const caller = { businessId: biz.id, environment: 'live' as const, keyId: 'key_test', role: 'owner' as const, policy: null };
      expect(screeningPauseReason(h.core, caller)).toMatch(/^sanctions screening is unavailable \(list un-sc was last fetched 30 h ago.*payouts are accepted and wait/);
      expect(livePauseReason(h.core, findChannel('spei_mxn')!)).not.toMatch(/screening/);

      // A live payout screened while unavailable is waiting; one screened again after is not.
      expect(await payoutsWaitingForScreening(h.core, 'live')).toEqual([]);
      const waiting = await sandboxPayout();
      const cleared = await sandboxPayout();
      const at = Date.now();
      await recordScreening(h.db, { subjectKind: 'individual', subjectName: 'Ana', outcome: 'unavailable', hits: [], listVersions: [], reference: waiting, screenedAt: new Date(at) });
      await recordScreening(h.db, { subjectKind: 'individual', subjectName: 'Ana', outcome: 'unavailable', hits: [], listVersions: [], reference: cleared, screenedAt: new Date(at) });
      await recordScreening(h.db, { subjectKind: 'individual', subjectName: 'Ana', outcome: 'clear', hits: [], listVersions: [], reference: cleared, screenedAt: new Date(at + 1000) });
      expect(await payoutsWaitingForScreening(h.core, 'sandbox')).toEqual([waiting]);
      expect(await payoutsWaitingForScreening(h.core, 'live')).toEqual([]);

      // The operator loads the list (docs/operations.md "Screening unavailable"); the worker's next tick reacts.
      const [loaded] = await service.refresh({ force: true });
      expect(loaded).toMatchObject({ ok: true });
      expect(service.status().available).toBe(true);
      expect(await statuses()).toEqual(baseline);
      const signalled: string[] = [];
      expect(await recheckWaitingPayouts(h.core, 'sandbox', async (id) => (signalled.push(id), true))).toEqual([waiting]);
      expect(signalled).toEqual([waiting]);
      // through the real gateway: the payout's workflow is not running here, so nothing is signalled and nothing throws
      await afterScreeningSync(h.core, 'sandbox', { reloaded: [], available: true, becameAvailable: true });
    } finally {
      restore();
    }
  });

  /** A sandbox payout row left `submitted` (no worker runs in this file). */
  async function sandboxPayout(): Promise<string> {
    await h.request('POST', '/sandbox/v1/sandbox/fund', { key: biz.sandbox, body: { amount: '100.00' } });
    const r = await h.request('POST', '/sandbox/v1/payouts', {
      key: biz.sandbox,
      body: { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: '1.00' },
    });
    expect(r.status).toBe(201);
    return r.body.id as string;
  }
});

describe('saved recipients', () => {
  const pagomovil = (name: string, dateOfBirth = '1990-05-17') => ({
    type: 'pagomovil',
    country: 'VE',
    name,
    kind: 'individual',
    pagomovil: { phone_number: '+584121234567', bank_code: '0102', national_id: 'V12345678', holder_name: name, date_of_birth: dateOfBirth },
  });
  const mexican = (name: string) => ({ type: 'bank_account', country: 'MX', name, kind: 'individual', bank_account: { holder_name: name, clabe: '032180000118359719' } });
  const lastScreening = (id: string) => h.db.selectFrom('recipient_screenings').selectAll().where('recipient_id', '=', id).executeTakeFirst();

  it('Surface A: "Jane Doe" is saved clear, "Sandy Sanctioned" saved as a potential match, "Connor Confirmed" born 1970-01-01 refused', async () => {
    const jane = await h.request('POST', '/sandbox/v1/recipients', { key: biz.sandbox, body: pagomovil('Jane Doe') });
    expect(jane.status).toBe(201);
    expect(await lastScreening(jane.body.id)).toMatchObject({ outcome: 'clear', environment: 'sandbox', business_id: biz.id });
    const sandy = await h.request('POST', '/sandbox/v1/recipients', { key: biz.sandbox, body: mexican('Sandy Sanctioned') });
    expect(sandy.status).toBe(201);
    const row = await lastScreening(sandy.body.id);
    expect(row).toMatchObject({ outcome: 'potential_match' });
    // The view carries the last screening (GET and list too); a recipient without a name has none.
    expect(jane.body.screening).toEqual({ status: 'clear', screened_at: expect.stringMatching(/Z$/) });
    expect(sandy.body.screening).toMatchObject({ status: 'potential_match' });
    expect((await h.request('GET', `/sandbox/v1/recipients/${sandy.body.id}`, { key: biz.sandbox })).body.screening).toMatchObject({ status: 'potential_match' });
    const listed = (await h.request('GET', '/sandbox/v1/recipients?limit=100', { key: biz.sandbox })).body.data as { id: string; screening: unknown }[];
    expect(listed.find((r) => r.id === jane.body.id)!.screening).toMatchObject({ status: 'clear' });
    const handle = await h.request('POST', '/sandbox/v1/recipients', { key: biz.sandbox, body: { type: 'service_user', service_user: { handle: '@maria' } } });
    expect(handle.status).toBe(201);
    expect(handle.body.screening).toBeNull();
    const screening = await h.db.selectFrom('screenings').selectAll().where('id', '=', row!.screening_id).executeTakeFirstOrThrow();
    expect(screening).toMatchObject({ reference: sandy.body.id, subject_name: 'Sandy Sanctioned', outcome: 'potential_match' });

    const before = await h.db.selectFrom('recipients').select('id').where('business_id', '=', biz.id).execute();
    const connor = await h.request('POST', '/sandbox/v1/recipients', { key: biz.sandbox, body: pagomovil('Connor Confirmed', '1970-01-01') });
    expect(connor.status).toBe(422);
    expect(connor.body.error).toMatchObject({ code: 'recipient_not_ready', param: 'name', message: expect.stringMatching(/sanctions screening confirmed a match/) });
    expect(await h.db.selectFrom('recipients').select('id').where('business_id', '=', biz.id).execute()).toHaveLength(before.length);
  });

  it('Surface A: an update of the name screens again (a confirmed match refused, the recipient unchanged); an update of other fields does not', async () => {
    const r = await h.request('POST', '/sandbox/v1/recipients', { key: biz.sandbox, body: mexican('Jane Roe') });
    expect(r.status).toBe(201);
    const first = await lastScreening(r.body.id);
    const ext = await h.request('PATCH', `/sandbox/v1/recipients/${r.body.id}`, { key: biz.sandbox, body: { type: 'bank_account', external_id: 'emp-9' } });
    expect(ext.status).toBe(200);
    expect((await lastScreening(r.body.id))!.screening_id).toBe(first!.screening_id);
    const sandy = await h.request('PATCH', `/sandbox/v1/recipients/${r.body.id}`, { key: biz.sandbox, body: { type: 'bank_account', name: 'Sandi Sanctioned' } });
    expect(sandy.status).toBe(200);
    expect(await lastScreening(r.body.id)).toMatchObject({ outcome: 'potential_match' });
    const connor = await h.request('PATCH', `/sandbox/v1/recipients/${r.body.id}`, {
      key: biz.sandbox,
      body: { ...pagomovil('Connor Confirmed', '1970-01-01'), external_id: undefined },
    });
    expect(connor.status).toBe(422);
    expect(connor.body.error).toMatchObject({ code: 'recipient_not_ready', param: 'name' });
    expect((await h.request('GET', `/sandbox/v1/recipients/${r.body.id}`, { key: biz.sandbox })).body.name).toBe('Sandi Sanctioned');
  });

  it('Surface C: a named contact recipient is screened ("Connor Confirmed" alone is a potential match: no date of birth to confirm it)', async () => {
    const C = '/sandbox/guide/v1/recipients';
    const jane = await h.request('POST', C, { key: biz.sandbox, body: { phone_number: '+525512345678', name: 'Jane Doe' } });
    expect(jane.status).toBe(201);
    expect(await lastScreening(jane.body.id)).toMatchObject({ outcome: 'clear' });
    const connor = await h.request('POST', C, { key: biz.sandbox, body: { phone_number: '+525512345679', name: 'Connor Confirmed' } });
    expect(connor.status).toBe(201);
    expect(await lastScreening(connor.body.id)).toMatchObject({ outcome: 'potential_match' });
    const unnamed = await h.request('POST', C, { key: biz.sandbox, body: { phone_number: '+525512345670' } });
    expect(unnamed.status).toBe(201);
    expect(await lastScreening(unnamed.body.id)).toBeUndefined();
  });

  it('a list change screens every saved live recipient again: one that newly hits becomes a potential match; an unchanged list screens nobody', async () => {
    const { service, dir } = unService();
    // Version 1 of the list lacks KIM TEST SUNG.
    writeFileSync(join(dir, 'consolidated.xml'), FIXTURE.replace(/kim/gi, 'Park'));
    const was = h.core.screening.live;
    h.core.screening.live = service;
    try {
      await service.refresh({ force: true });
      const kim = await h.request('POST', '/v1/recipients', { key: biz.live, body: mexican('Kim Test Sung') });
      expect(kim.status).toBe(201);
      const ana = await h.request('POST', '/v1/recipients', { key: biz.live, body: mexican('Ana Lopez') });
      expect(ana.status).toBe(201);
      expect(await lastScreening(kim.body.id)).toMatchObject({ outcome: 'clear', environment: 'live' });

      expect(await rescreenRecipients(h.core, 'live')).toMatchObject({ screened: 0 });

      writeFileSync(join(dir, 'consolidated.xml'), FIXTURE); // version 2 lists him
      await service.refresh({ force: true });
      const report = await rescreenRecipients(h.core, 'live', { pageSize: 1 });
      expect(report.screened).toBe(2);
      expect(report.outcomes).toEqual({ clear: 1, potential_match: 1 });
      expect(await lastScreening(kim.body.id)).toMatchObject({ outcome: 'potential_match' });
      expect(await lastScreening(ana.body.id)).toMatchObject({ outcome: 'clear' });
      expect(await metricsRegistry.getSingleMetricAsString('screening_rescreened_recipients_total')).toMatch(/outcome="potential_match"\} 1/);
      expect(await rescreenRecipients(h.core, 'live')).toMatchObject({ screened: 0 });

      // The worker's reaction to a tick: nothing while the versions are unchanged; a changed version screens again.
      writeFileSync(join(dir, 'consolidated.xml'), FIXTURE.replace(/kim/gi, 'Lee'));
      await service.refresh({ force: true });
      await afterScreeningSync(h.core, 'live', { reloaded: [], available: true, becameAvailable: false });
      expect(await lastScreening(kim.body.id)).toMatchObject({ outcome: 'potential_match' });
      await afterScreeningSync(h.core, 'live', { reloaded: ['un-sc'], available: true, becameAvailable: false });
      expect(await lastScreening(kim.body.id)).toMatchObject({ outcome: 'clear' });
    } finally {
      h.core.screening.live = was;
    }
  });
});
