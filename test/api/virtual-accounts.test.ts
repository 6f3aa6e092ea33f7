import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { isValidBIC, isValidIBAN } from 'ibantools';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidAbaRouting, isValidClabe } from '../../src/domain/recipients';
import { createHarness, type Harness } from '../helpers/harness';
import { skipWithoutPostgres } from '../helpers/postgres';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ worker: false });
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';
const create = (key: string, body: unknown) => h.request('POST', `${A}/virtual-accounts`, { key, body });

describe('POST /virtual-accounts (happy)', () => {
  it('issues USD, EUR and MXN accounts whose whole details pass real validators, masked in the API', async () => {
    const b = await h.business({ verified: true });
    const usd = await create(b.sandbox, { currency: 'USD' });
    const eur = await create(b.sandbox, { currency: 'EUR', label: 'Invoices' });
    const mxn = await create(b.sandbox, { currency: 'MXN' });
    for (const r of [usd, eur, mxn]) {
      expect(r.status).toBe(201);
      expect(r.body.id).toMatch(/^va_/);
      expect(r.body.object).toBe('virtual_account');
      expect(r.body.status).toBe('active');
      expect(r.body.details.beneficiary_name).toBe('Test business');
    }
    expect(usd.body).toMatchObject({ currency: 'USD', rail: 'ach_usd', reference_required: false, label: null });
    expect(eur.body).toMatchObject({ currency: 'EUR', rail: 'sepa_eur', reference_required: true, label: 'Invoices' });
    expect(mxn.body).toMatchObject({ currency: 'MXN', rail: 'spei_mxn', reference_required: false });

    // Masked: only the last four characters of the account identifier.
    expect(usd.body.details.account_number).toMatch(/^••••\d{4}$/);
    expect(eur.body.details.iban).toMatch(/^••••\d{4}$/);
    expect(mxn.body.details.clabe).toMatch(/^••••\d{4}$/);
    expect(isValidAbaRouting(usd.body.details.routing_number)).toBe(true);
    expect(isValidBIC(eur.body.details.bic)).toBe(true);

    const rows = await h.db.selectFrom('virtual_accounts').selectAll().where('business_id', '=', b.id).execute();
    const whole = Object.fromEntries(rows.map((r) => [r.currency, r.details]));
    expect(whole.USD.account_number).toMatch(/^\d{12}$/);
    expect(whole.USD.account_number.endsWith(usd.body.details.account_number.slice(-4))).toBe(true);
    expect(isValidAbaRouting(whole.USD.routing_number)).toBe(true);
    expect(isValidIBAN(whole.EUR.iban)).toBe(true);
    expect(whole.EUR.iban.startsWith('DE')).toBe(true);
    expect(isValidClabe(whole.MXN.clabe)).toBe(true);
  });

  it('GET lists newest first with limit/cursor and a currency filter; GET by id', async () => {
    const b = await h.business();
    const ids: string[] = [];
    for (const currency of ['USD', 'EUR', 'USD']) ids.push((await create(b.sandbox, { currency })).body.id);
    const p1 = await h.request('GET', `${A}/virtual-accounts?limit=2`, { key: b.sandbox });
    expect(p1.status).toBe(200);
    expect(p1.body.data.map((v: any) => v.id)).toEqual([ids[2], ids[1]]);
    expect(p1.body.next_cursor).toEqual(expect.any(String));
    const p2 = await h.request('GET', `${A}/virtual-accounts?limit=2&cursor=${p1.body.next_cursor}`, { key: b.sandbox });
    expect(p2.body.data.map((v: any) => v.id)).toEqual([ids[0]]);
    expect(p2.body.next_cursor).toBeNull();
    const usd = await h.request('GET', `${A}/virtual-accounts?currency=USD`, { key: b.sandbox });
    expect(usd.body.data.map((v: any) => v.id)).toEqual([ids[2], ids[0]]);
    const one = await h.request('GET', `${A}/virtual-accounts/${ids[1]}`, { key: b.sandbox });
    expect(one.status).toBe(200);
    expect(one.body.currency).toBe('EUR');
    expect(one.body.details.iban).toMatch(/^••••/);
  });
});

describe('POST /virtual-accounts (errors)', () => {
  it('400 validation_error param currency for a currency other than USD, EUR, MXN, or none; nothing created', async () => {
    const b = await h.business();
    for (const body of [{ currency: 'GBP' }, {}, { currency: 5 }]) {
      const r = await create(b.sandbox, body);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.param).toBe('currency');
    }
    expect((await h.request('GET', `${A}/virtual-accounts`, { key: b.sandbox })).body.data).toEqual([]);
  });

  it('403 verification_required for an unverified business, and 201 once the operator verified it', async () => {
    const b = await h.business({ verified: false });
    const r = await create(b.sandbox, { currency: 'USD' });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('verification_required');
    expect((await h.db.selectFrom('virtual_accounts').select('id').where('business_id', '=', b.id).execute()).length).toBe(0);
    const { verifyBusiness } = await import('../../src/core/businesses');
    await verifyBusiness(h.db, b.id);
    expect((await create(b.sandbox, { currency: 'USD' })).status).toBe(201);
  });

  it('400 channel_unavailable in the live environment (no live banking partner)', async () => {
    const b = await h.business();
    const r = await h.request('POST', '/v1/virtual-accounts', { key: b.live, body: { currency: 'EUR' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'channel_unavailable', param: 'currency' });
  });
});

describe('virtual accounts (security)', () => {
  it("another business's account is 404 and never listed", async () => {
    const a = await h.business();
    const other = await h.business();
    const va = (await create(a.sandbox, { currency: 'MXN' })).body;
    const r = await h.request('GET', `${A}/virtual-accounts/${va.id}`, { key: other.sandbox });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    expect((await h.request('GET', `${A}/virtual-accounts`, { key: other.sandbox })).body.data).toEqual([]);
  });

  it('401 without a key and for a key of the other environment', async () => {
    const b = await h.business();
    expect((await h.request('POST', `${A}/virtual-accounts`, { body: { currency: 'USD' } })).status).toBe(401);
    const live = await h.request('POST', `${A}/virtual-accounts`, { key: b.live, body: { currency: 'USD' } });
    expect(live.status).toBe(401);
    expect(live.body.error.code).toBe('environment_mismatch');
    const list = await h.request('GET', '/v1/virtual-accounts', { key: b.sandbox });
    expect(list.status).toBe(401);
  });
});

const run = promisify(execFile);

const NO_POSTGRES =
  !process.env.ADMIN_TEST_DATABASE_URL && skipWithoutPostgres('test/api/virtual-accounts.test.ts', '"npm run admin -- business verify" (it creates a database; or set ADMIN_TEST_DATABASE_URL)');

describe('npm run admin -- business verify', () => {
  it.skipIf(NO_POSTGRES)(
    'creates an unverified business, then verifies it (PostgreSQL)',
    async () => {
      const base = process.env.ADMIN_TEST_DATABASE_URL ?? (process.env.DATABASE_URL as string);
      const name = `getting_paid_admin_${randomBytes(4).toString('hex')}`;
      const admin = new pg.Client({ connectionString: base });
      await admin.connect();
      await admin.query(`create database ${name}`);
      const u = new URL(base);
      u.pathname = `/${name}`;
      const env = { ...process.env, DATABASE_URL: u.toString(), LOG_LEVEL: 'silent' };
      try {
        const created = JSON.parse((await run('npx', ['tsx', 'src/main/admin.ts', 'business', 'create', '--name', 'Acme', '--json'], { env })).stdout);
        const out = JSON.parse((await run('npx', ['tsx', 'src/main/admin.ts', 'business', 'verify', created.business_id, '--json'], { env })).stdout);
        expect(out).toEqual({ business_id: created.business_id, verified: true });
        const c = new pg.Client({ connectionString: u.toString() });
        await c.connect();
        const { rows } = await c.query('select verified from businesses where id = $1', [created.business_id]);
        await c.end();
        expect(rows[0].verified).toBe(true);
        await expect(run('npx', ['tsx', 'src/main/admin.ts', 'business', 'verify', 'biz_nope'], { env })).rejects.toThrow(/No business/);
      } finally {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
    },
    60_000,
  );
});
