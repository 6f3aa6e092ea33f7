import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

const VALID_CLABE = '002010077777777771';
const BAD_CLABE = '002010077777777772'; // check digit should be 1
const VALID_IBAN = 'DE89 3704 0044 0532 0130 00';
const BAD_IBAN = 'DE89370400440532013001'; // checksum mismatch
const MX_PHONE = '+525512345678';

let h: Harness;
let biz: { id: string; sandbox: string; live: string };

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
});
afterAll(async () => h?.close());

type Res = { status: number; body: any; headers: Headers };
const post = (body: unknown, key = biz.sandbox, headers?: Record<string, string>) =>
  h.request('POST', '/sandbox/v1/recipients', { key, body, headers });
const get = (path: string, key = biz.sandbox) => h.request('GET', `/sandbox/v1${path}`, { key });
const patch = (id: string, body: unknown, key = biz.sandbox) => h.request('PATCH', `/sandbox/v1/recipients/${id}`, { key, body });
const del = (id: string, key = biz.sandbox) => h.request('DELETE', `/sandbox/v1/recipients/${id}`, { key });

function expectError(r: Res, status: number, code: string, param: string | null) {
  expect({ status: r.status, code: r.body?.error?.code, param: r.body?.error?.param }).toEqual({ status, code, param });
}

const mexican = (extra: Record<string, unknown> = {}) => ({
  type: 'bank_account',
  country: 'MX',
  name: 'Ana López',
  kind: 'individual',
  external_id: 'cust_42',
  bank_account: { holder_name: 'Ana López', clabe: VALID_CLABE },
  ...extra,
});

describe('recipients: happy', () => {
  describe('POST /recipients (spec "Recipient")', () => {
    it('saves a Mexican CLABE recipient: ready on spei_mxn, CLABE masked to its last four, stored unmasked', async () => {
      const r = await post(mexican());
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.stringMatching(/^rcp_[0-9a-z]{26}$/),
        object: 'recipient',
        type: 'bank_account',
        country: 'MX',
        currency: null,
        name: 'Ana López',
        kind: 'individual',
        external_id: 'cust_42',
        // recipient_kind comes from the recipient's kind.
        bank_account: { holder_name: 'Ana López', clabe: '••••7771', recipient_kind: 'individual' },
        status: 'ready',
        missing_fields: [],
        channels: ['spei_mxn'],
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        // Screened against the sandbox list on create (docs/screening.md "Saved recipients").
        screening: { status: 'clear', screened_at: expect.stringMatching(/Z$/) },
      });
      expect(r.text).not.toContain(VALID_CLABE);
      const row = await h.db.selectFrom('recipients').selectAll().where('id', '=', r.body.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ business_id: biz.id, environment: 'sandbox', status: 'ready' });
      expect(row.details).toEqual({ holder_name: 'Ana López', clabe: VALID_CLABE, recipient_kind: 'individual' });

      const again = await get(`/recipients/${r.body.id}`);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(r.body);
    });

    it('checks the IBAN checksum; a valid IBAN is ready on sepa_eur and masked', async () => {
      const bad = await post({ type: 'bank_account', country: 'DE', bank_account: { holder_name: 'Max Muster', iban: BAD_IBAN } });
      expectError(bad, 400, 'validation_error', 'bank_account.iban');
      const ok = await post({ type: 'bank_account', country: 'de', bank_account: { holder_name: 'Max Muster', iban: VALID_IBAN } });
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({
        country: 'DE',
        status: 'ready',
        channels: ['sepa_eur'],
        bank_account: { holder_name: 'Max Muster', iban: '••••3000' },
      });
      const row = await h.db.selectFrom('recipients').select('details').where('id', '=', ok.body.id).executeTakeFirstOrThrow();
      expect(row.details.iban).toBe('DE89370400440532013000');
    });

    it('is needs_fields with missing_fields when corridor fields are missing', async () => {
      const r = await post({ type: 'bank_account', country: 'MX', bank_account: { clabe: VALID_CLABE } });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ status: 'needs_fields', missing_fields: ['holder_name', 'recipient_kind'], channels: [] });
    });

    it('validates phone numbers as E.164 (not masked: the claim link goes there)', async () => {
      const ok = await post({ type: 'phone', phone: { number: MX_PHONE } });
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({ type: 'phone', phone: { number: MX_PHONE }, status: 'ready', channels: ['claim_link'] });
      expect(ok.body).not.toHaveProperty('bank_account');
      expectError(await post({ type: 'phone', phone: { number: '5512345678' } }), 400, 'validation_error', 'phone.number');
      expectError(await post({ type: 'phone', phone: { number: '+52 55 1234 5678' } }), 400, 'validation_error', 'phone.number');
      expectError(await post({ type: 'phone', phone: { number: 5512345678 } }), 400, 'validation_error', 'phone.number');
      const missing = await post({ type: 'phone', phone: {} });
      expect(missing.body).toMatchObject({ status: 'needs_fields', missing_fields: ['number'], channels: [] });
    });

    it('validates e-mail addresses', async () => {
      const ok = await post({ type: 'email', email: { address: 'ana@example.com' } });
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({ email: { address: 'ana@example.com' }, status: 'ready', channels: ['claim_link'] });
      expectError(await post({ type: 'email', email: { address: 'ana@' } }), 400, 'validation_error', 'email.address');
    });

    it('masks pagomovil identity fields', async () => {
      const r = await post({
        type: 'pagomovil',
        country: 'VE',
        pagomovil: {
          phone_number: '+584121234567',
          bank_code: '0102',
          national_id: 'V12345678',
          holder_name: 'José Pérez',
          date_of_birth: '1990-05-17',
        },
      });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        status: 'ready',
        channels: ['pagomovil_ves'],
        pagomovil: { phone_number: '••••4567', bank_code: '0102', national_id: '••••78', holder_name: 'José Pérez', date_of_birth: '••••17' },
      });
    });
  });

  describe('idempotent create (spec "Limits": idempotency)', () => {
    it('replays the same key and body, and refuses the same key with another body', async () => {
      const headers = { 'Idempotency-Key': `rcp-create-${Date.now()}` };
      const body = mexican({ external_id: 'idem_1' });
      const first = await post(body, biz.sandbox, headers);
      expect(first.status).toBe(201);
      expect(first.headers.get('Idempotent-Replayed')).toBeNull();
      const replay = await post(body, biz.sandbox, headers);
      expect(replay.status).toBe(201);
      expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
      expect(replay.body.id).toBe(first.body.id);
      const rows = await h.db.selectFrom('recipients').select('id').where('external_id', '=', 'idem_1').execute();
      expect(rows).toHaveLength(1);
      const conflict = await post(mexican({ external_id: 'idem_2' }), biz.sandbox, headers);
      expectError(conflict, 409, 'idempotency_conflict', 'Idempotency-Key');
    });
  });

  describe('GET /recipients (list envelope)', () => {
    let lister: { id: string; sandbox: string; live: string };
    const ids: string[] = [];

    beforeAll(async () => {
      lister = await h.business();
      const bodies = [
        mexican({ external_id: 'a' }),
        { type: 'phone', country: 'MX', phone: { number: MX_PHONE }, external_id: 'b' },
        { type: 'phone', country: 'US', phone: { number: '+14155552671' }, external_id: 'c' },
        { type: 'email', email: { address: 'x@example.com' }, external_id: 'd' },
      ];
      for (const b of bodies) {
        const r = await post(b, lister.sandbox);
        expect(r.status).toBe(201);
        ids.push(r.body.id);
      }
    });

    it('lists newest first in the list envelope, with filters', async () => {
      const all = await get('/recipients', lister.sandbox);
      expect(all.status).toBe(200);
      expect(Object.keys(all.body).sort()).toEqual(['data', 'next_cursor']);
      expect(all.body.data.map((r: any) => r.id)).toEqual([...ids].reverse());
      expect(all.body.next_cursor).toBeNull();
      expect(all.body.data[3].bank_account.clabe).toBe('••••7771');

      const phones = await get('/recipients?type=phone', lister.sandbox);
      expect(phones.body.data.map((r: any) => r.id)).toEqual([ids[2], ids[1]]);
      const mx = await get('/recipients?country=mx', lister.sandbox);
      expect(mx.body.data.map((r: any) => r.id)).toEqual([ids[1], ids[0]]);
      const both = await get('/recipients?type=phone&country=MX', lister.sandbox);
      expect(both.body.data.map((r: any) => r.id)).toEqual([ids[1]]);
      const ext = await get('/recipients?external_id=d', lister.sandbox);
      expect(ext.body.data.map((r: any) => r.id)).toEqual([ids[3]]);
    });

    it('pages with limit 1 across every page without duplicates or gaps', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r: Res = await get(`/recipients?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, lister.sandbox);
        expect(r.status).toBe(200);
        expect(r.body.data).toHaveLength(1);
        seen.push(r.body.data[0].id);
        cursor = r.body.next_cursor;
        pages++;
      } while (cursor && pages < 10);
      expect(seen).toEqual([...ids].reverse());
      expect(new Set(seen).size).toBe(ids.length);
    });
  });

  describe('PATCH /recipients/{id}', () => {
    it('updates fields, keeps the stored type object, and re-validates', async () => {
      const r = await post(mexican());
      const u = await patch(r.body.id, { type: 'bank_account', name: 'Ana María López', external_id: null });
      expect(u.status).toBe(200);
      expect(u.body).toMatchObject({
        id: r.body.id,
        name: 'Ana María López',
        external_id: null,
        status: 'ready',
        bank_account: { clabe: '••••7771' },
        created_at: r.body.created_at,
      });
      // Changing kind carries into the kept bank object's recipient_kind.
      const k = await patch(r.body.id, { type: 'bank_account', kind: 'business' });
      expect(k.body).toMatchObject({ kind: 'business', bank_account: { recipient_kind: 'business' }, status: 'ready' });
      // A bad value in a replacement object is refused and nothing changes.
      expectError(await patch(r.body.id, { type: 'bank_account', bank_account: { holder_name: 'A', clabe: BAD_CLABE } }), 400, 'validation_error', 'bank_account.clabe');
      expect((await get(`/recipients/${r.body.id}`)).body.name).toBe('Ana María López');
    });

    it('completes a needs_fields recipient by replacing its type object', async () => {
      const r = await post({ type: 'bank_account', country: 'MX', bank_account: { clabe: VALID_CLABE } });
      expect(r.body.status).toBe('needs_fields');
      const u = await patch(r.body.id, {
        type: 'bank_account',
        bank_account: { holder_name: 'Luis', clabe: VALID_CLABE, recipient_kind: 'business' },
      });
      expect(u.status).toBe(200);
      expect(u.body).toMatchObject({ status: 'ready', missing_fields: [], channels: ['spei_mxn'], kind: 'business' });
    });

    it('changes type only together with the new type object', async () => {
      const r = await post({ type: 'phone', phone: { number: MX_PHONE } });
      expectError(await patch(r.body.id, { type: 'email' }), 400, 'validation_error', 'email');
      expectError(await patch(r.body.id, { type: 'email', phone: { number: MX_PHONE } }), 400, 'validation_error', 'phone');
      const u = await patch(r.body.id, { type: 'email', email: { address: 'ana@example.com' } });
      expect(u.status).toBe(200);
      expect(u.body).toMatchObject({ type: 'email', email: { address: 'ana@example.com' }, status: 'ready' });
      expect(u.body).not.toHaveProperty('phone');
    });
  });

  describe('DELETE /recipients/{id}', () => {
    it('204, then the recipient is 404 and no longer listed', async () => {
      const r = await post({ type: 'email', email: { address: 'gone@example.com' }, external_id: 'to-delete' });
      const d = await del(r.body.id);
      expect(d.status).toBe(204);
      expect(d.text).toBe('');
      expectError(await get(`/recipients/${r.body.id}`), 404, 'not_found', 'id');
      expectError(await del(r.body.id), 404, 'not_found', 'id');
      expectError(await patch(r.body.id, { type: 'email' }), 404, 'not_found', 'id');
      const list = await get('/recipients?external_id=to-delete');
      expect(list.body.data).toEqual([]);
      const row = await h.db.selectFrom('recipients').select('deleted_at').where('id', '=', r.body.id).executeTakeFirstOrThrow();
      expect(row.deleted_at).toBeInstanceOf(Date);
    });
  });

  describe('GET /recipients/check (spec "Receivability")', () => {
    it('a Mexican phone: country MX, methods include spei_bank', async () => {
      const r = await get(`/recipients/check?type=phone&number=${encodeURIComponent(MX_PHONE)}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        receivable: true,
        country: 'MX',
        methods: ['spei_bank', 'service_wallet'],
        kyc_required_for: ['spei_bank'],
      });
    });

    it('an e-mail: no country, the service wallet', async () => {
      const r = await get('/recipients/check?type=email&address=ana%40example.com');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ receivable: true, country: null, methods: ['service_wallet'] });
    });
  });
});

describe('recipients: error', () => {
  describe('POST /recipients', () => {
    it('400 validation_error naming bank_account.clabe for a wrong CLABE check digit', async () => {
      const r = await post(mexican({ bank_account: { holder_name: 'Ana', clabe: BAD_CLABE } }));
      expectError(r, 400, 'validation_error', 'bank_account.clabe');
      expect(r.body.error.message).toMatch(/check digit/);
    });

    it('422 recipient_not_ready when no bank corridor fits', async () => {
      expectError(await post({ type: 'bank_account', bank_account: { holder_name: 'X', account_number: '123456' } }), 422, 'recipient_not_ready', 'country');
      expectError(await post({ type: 'bank_account', country: 'AQ', bank_account: { holder_name: 'X' } }), 422, 'recipient_not_ready', 'country');
    });

    it('400 validation_error when the type object does not match type', async () => {
      expectError(await post({ type: 'bank_account', country: 'MX' }), 400, 'validation_error', 'bank_account');
      expectError(await post({ ...mexican(), phone: { number: MX_PHONE } }), 400, 'validation_error', 'phone');
      expectError(await post({ type: 'phone', email: { address: 'a@example.com' } }), 400, 'validation_error', 'email');
      expectError(await post({ type: 'phone', phone: { number: MX_PHONE, extra: 1 } }), 400, 'validation_error', 'phone.extra');
    });

    it('400 validation_error for a missing or unknown type, unknown keys and malformed codes', async () => {
      expectError(await post({ phone: { number: MX_PHONE } }), 400, 'validation_error', 'type');
      expectError(await post({ type: 'fax', phone: { number: MX_PHONE } }), 400, 'validation_error', 'type');
      expectError(await post({ type: 'bank_account', country: 'MX', bank_acount: {} }), 400, 'validation_error', 'bank_acount');
      expectError(await post(mexican({ country: 'Mexico' })), 400, 'validation_error', 'country');
      expectError(await post(mexican({ kind: 'person' })), 400, 'validation_error', 'kind');
    });

    it('refuses a masked value sent back and a kind that contradicts recipient_kind', async () => {
      const masked = await post(mexican({ bank_account: { holder_name: 'Ana', clabe: '••••7771' } }));
      expectError(masked, 400, 'validation_error', 'bank_account.clabe');
      expect(masked.body.error.message).toMatch(/masked/);
      const conflict = await post(mexican({ bank_account: { holder_name: 'Ana', clabe: VALID_CLABE, recipient_kind: 'business' } }));
      expectError(conflict, 400, 'validation_error', 'bank_account.recipient_kind');
      const inferred = await post(mexican({ kind: undefined, bank_account: { holder_name: 'Ana', clabe: VALID_CLABE, recipient_kind: 'business' } }));
      expect(inferred.body).toMatchObject({ kind: 'business', status: 'ready' });
    });
  });

  describe('GET /recipients', () => {
    let lister: { id: string; sandbox: string; live: string };
    beforeAll(async () => {
      lister = await h.business();
    });

    it('400 validation_error for limit out of 1..200 and for a cursor we did not issue', async () => {
      expectError(await get('/recipients?limit=201', lister.sandbox), 400, 'validation_error', 'limit');
      expectError(await get('/recipients?limit=0', lister.sandbox), 400, 'validation_error', 'limit');
      expectError(await get('/recipients?limit=abc', lister.sandbox), 400, 'validation_error', 'limit');
      expectError(await get('/recipients?cursor=garbage', lister.sandbox), 400, 'validation_error', 'cursor');
      expectError(await get('/recipients?type=fax', lister.sandbox), 400, 'validation_error', 'type');
      expect((await get('/recipients?limit=200', lister.sandbox)).status).toBe(200);
    });
  });

  describe('PATCH /recipients/{id}', () => {
    it('400 validation_error naming type when type is missing', async () => {
      const r = await post(mexican());
      expectError(await patch(r.body.id, { name: 'Other' }), 400, 'validation_error', 'type');
    });

    it('404 for an unknown id', async () => {
      expectError(await patch('rcp_nope', { type: 'phone' }), 404, 'not_found', 'id');
    });
  });

  describe('GET /recipients/check', () => {
    it('400 validation_error naming type, number or address', async () => {
      expectError(await get('/recipients/check'), 400, 'validation_error', 'type');
      expectError(await get('/recipients/check?type=sms'), 400, 'validation_error', 'type');
      expectError(await get('/recipients/check?type=phone'), 400, 'validation_error', 'number');
      expectError(await get('/recipients/check?type=phone&number=12345'), 400, 'validation_error', 'number');
      expectError(await get('/recipients/check?type=email'), 400, 'validation_error', 'address');
    });
  });
});

describe('recipients: security', () => {
  describe('tenancy, environments and authentication', () => {
    it("another business's recipient is a 404 everywhere and is not listed", async () => {
      const mine = await post(mexican({ external_id: 'tenant-a' }));
      const other = await h.business();
      expectError(await get(`/recipients/${mine.body.id}`, other.sandbox), 404, 'not_found', 'id');
      expectError(await patch(mine.body.id, { type: 'bank_account', name: 'x' }, other.sandbox), 404, 'not_found', 'id');
      expectError(await del(mine.body.id, other.sandbox), 404, 'not_found', 'id');
      const list = await get('/recipients?external_id=tenant-a', other.sandbox);
      expect(list.body.data).toEqual([]);
      expect((await get(`/recipients/${mine.body.id}`)).status).toBe(200);
    });

    it('a sandbox recipient does not exist in live', async () => {
      const mine = await post(mexican());
      const r = await h.request('GET', `/v1/recipients/${mine.body.id}`, { key: biz.live });
      expectError(r, 404, 'not_found', 'id');
    });

    it('401 with a live key on the sandbox address or without a key', async () => {
      expectError(await post(mexican(), biz.live), 401, 'environment_mismatch', null);
      expectError(await get('/recipients', biz.live), 401, 'environment_mismatch', null);
      expectError(await h.request('GET', '/sandbox/v1/recipients'), 401, 'authentication_required', null);
    });

    it('documents the recipient routes, check before {id}', async () => {
      const r = await h.request('GET', '/sandbox/v1/openapi.json');
      const paths = Object.keys(r.body.paths);
      expect(paths).toEqual(expect.arrayContaining(['/recipients', '/recipients/check', '/recipients/{id}']));
      expect(Object.keys(r.body.paths['/recipients/{id}']).sort()).toEqual(['delete', 'get', 'patch']);
      expect(paths.indexOf('/recipients/check')).toBeLessThan(paths.indexOf('/recipients/{id}'));
    });
  });
});

describe('PATCH of a recipient made on Surface C (a contact recipient, whose external_id is unique)', () => {
  it('another contact\'s external_id is 409 external_id_taken naming external_id, and nothing changes (was a 500 found by Schemathesis)', async () => {
    const b = await h.business();
    const mk = (external_id: string) => h.request('POST', '/sandbox/guide/v1/recipients', { key: b.sandbox, body: { phone_number: MX_PHONE, external_id } });
    const first = await mk('ext-1');
    const second = await mk('ext-2');
    expect([first.status, second.status]).toEqual([201, 201]);
    const r = await patch(second.body.id, { type: 'phone', phone: { number: MX_PHONE }, external_id: 'ext-1' }, b.sandbox);
    expect(r.status, r.text).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'external_id_taken', param: 'external_id' });
    const after = await get(`/recipients/${second.body.id}`, b.sandbox);
    expect(after.body.external_id).toBe('ext-2');
    // a free one is fine
    const ok = await patch(second.body.id, { type: 'phone', phone: { number: MX_PHONE }, external_id: 'ext-3' }, b.sandbox);
    expect([ok.status, ok.body.external_id]).toEqual([200, 'ext-3']);
  });
});
