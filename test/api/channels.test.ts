import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

/** ISO 8601 duration (date and/or time part, e.g. P1D, PT30M, PT0.5S). */
const DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;
const AMOUNT = /^\d+(\.\d{1,6})?$/;
const RECIPIENT_TYPES = ['bank_account', 'pagomovil', 'wallet', 'phone', 'email', 'service_user'];

let h: Harness;
let paused: Harness;
let biz: { id: string; sandbox: string; live: string };

beforeAll(async () => {
  [h, paused] = await Promise.all([
    createHarness({ worker: false }),
    createHarness({ worker: false, env: { PAUSED_CHANNELS: 'sepa_eur' } }),
  ]);
  biz = await h.business();
});
afterAll(async () => {
  await h?.close();
  await paused?.close();
});

describe('channels: happy', () => {
  describe('GET /channels (spec "Channel")', () => {
    it('lists the catalog: the named channels and bank accounts in at least 40 currencies', async () => {
      const r = await h.request('GET', '/sandbox/v1/channels', { key: biz.sandbox });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body)).toEqual(['data']);
      const ids = r.body.data.map((c: any) => c.id);
      for (const id of ['claim_link', 'pagomovil_ves', 'sepa_eur', 'ach_usd', 'spei_mxn', 'chats_hkd']) expect(ids).toContain(id);
      expect(new Set(ids).size).toBe(ids.length);
      const bankCurrencies = new Set(r.body.data.filter((c: any) => c.recipient_type === 'bank_account').map((c: any) => c.currency));
      expect(bankCurrencies.size).toBeGreaterThanOrEqual(40);
    });

    it('gives every field of the Channel table, with ISO 8601 durations and USDC limits', async () => {
      const r = await h.request('GET', '/sandbox/v1/channels', { key: biz.sandbox });
      for (const c of r.body.data) {
        expect(Object.keys(c).sort()).toEqual(
          ['arrival', 'countries', 'country', 'currency', 'fee', 'id', 'limits', 'rail', 'recipient_type', 'status', 'status_reason'].sort(),
        );
        expect(c.status).toBe('live');
        expect(c.status_reason).toBeNull();
        expect(c.country === null || /^[A-Z]{2}$/.test(c.country)).toBe(true);
        expect(c.currency).toMatch(/^[A-Z]{3,4}$/);
        expect(typeof c.rail).toBe('string');
        expect(RECIPIENT_TYPES).toContain(c.recipient_type);
        expect(c.arrival.min).toMatch(DURATION);
        expect(c.arrival.max).toMatch(DURATION);
        expect(c.limits.min).toMatch(AMOUNT);
        expect(c.limits.max).toMatch(AMOUNT);
        expect(c.limits.currency).toBe('USDC');
        expect(c.fee.percent).toMatch(/^\d+(\.\d+)?$/);
        expect(c.fee.flat).toMatch(AMOUNT);
        expect(c.fee.currency).toBe('USDC');
        // Internal catalog fields stay internal.
        expect(c).not.toHaveProperty('requirements');
        expect(c).not.toHaveProperty('coverage');
      }
    });

    it('shows spei_mxn and claim_link exactly', async () => {
      const r = await h.request('GET', '/sandbox/v1/channels', { key: biz.sandbox });
      const spei = r.body.data.find((c: any) => c.id === 'spei_mxn');
      expect(spei).toEqual({
        id: 'spei_mxn',
        status: 'live',
        status_reason: null,
        country: 'MX',
        countries: ['MX'],
        currency: 'MXN',
        rail: 'spei',
        recipient_type: 'bank_account',
        arrival: { min: 'PT1M', max: 'PT30M' },
        limits: { min: '1.00', max: '50000.00', currency: 'USDC' },
        // provider 0.3 % + service 0.5 % + FX spread 0.35 %; provider flat 0.25 + service flat 0.
        fee: { percent: '1.15', flat: '0.25', currency: 'USDC' },
      });
      const claim = r.body.data.find((c: any) => c.id === 'claim_link');
      expect(claim).toMatchObject({ country: null, countries: [], currency: 'USD', arrival: { max: 'P30D' } });
    });

    it('filters by country, currency and recipient_type (extension)', async () => {
      const mx = await h.request('GET', '/sandbox/v1/channels?country=mx', { key: biz.sandbox });
      expect(mx.status).toBe(200);
      expect(mx.body.data.map((c: any) => c.id)).toEqual(['spei_mxn']);
      const de = await h.request('GET', '/sandbox/v1/channels?country=DE', { key: biz.sandbox });
      expect(de.body.data.map((c: any) => c.id)).toEqual(['sepa_eur']);
      const php = await h.request('GET', '/sandbox/v1/channels?currency=PHP', { key: biz.sandbox });
      expect(php.body.data.map((c: any) => c.id).sort()).toEqual(['instapay_php', 'pesonet_php']);
      const email = await h.request('GET', '/sandbox/v1/channels?recipient_type=email', { key: biz.sandbox });
      expect(email.body.data.map((c: any) => c.id)).toEqual(['claim_link']);
      const wallet = await h.request('GET', '/sandbox/v1/channels?recipient_type=wallet&currency=usdc', { key: biz.sandbox });
      expect(wallet.body.data.map((c: any) => c.id)).toEqual(['stellar_usdc']);
    });

    it('reports a channel the operator paused as paused', async () => {
      const other = await paused.business();
      const r = await paused.request('GET', '/sandbox/v1/channels', { key: other.sandbox });
      const byId = Object.fromEntries(r.body.data.map((c: any) => [c.id, c.status]));
      expect(byId.sepa_eur).toBe('paused');
      expect(byId.spei_mxn).toBe('live');
    });

    it('reports every channel paused in live, where no rail adapter is configured', async () => {
      const r = await h.request('GET', '/v1/channels', { key: biz.live });
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeGreaterThan(40);
      expect(r.body.data.every((c: any) => c.status === 'paused')).toBe(true);
    });
  });

  describe('GET /channels/{channel}/requirements (spec "ChannelRequirements")', () => {
    it('gives the Mexican channel exactly holder_name, clabe, recipient_kind and its limits', async () => {
      const r = await h.request('GET', '/sandbox/v1/channels/spei_mxn/requirements', { key: biz.sandbox });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        channel: 'spei_mxn',
        recipient_type: 'bank_account',
        fields: [
          { name: 'holder_name', type: 'string', required: true, description: 'Full name of the account holder as the bank knows it' },
          { name: 'clabe', type: 'string', required: true, pattern: '^[0-9]{18}$', description: '18-digit CLABE (check digit validated)' },
          { name: 'recipient_kind', type: 'enum', required: true, values: ['individual', 'business'] },
        ],
        limits: { min: '1.00', max: '50000.00', currency: 'USDC' },
        identity_fields: expect.any(Array),
      });
      // Extension: what a claimant gives on the claim page (docs/screening.md "Identity at claim time").
      expect(r.body.identity_fields.map((f: any) => f.name)).toEqual(['full_name', 'date_of_birth', 'national_id_kind', 'national_id']);
      expect(r.body.identity_fields[2]).toMatchObject({ type: 'enum', values: ['curp'] });
    });

    it('asks Brazil for a payment key and a tax id, Hong Kong for a SWIFT code and an id document', async () => {
      const br = await h.request('GET', '/sandbox/v1/channels/pix_brl/requirements', { key: biz.sandbox });
      expect(br.body.fields.map((f: any) => f.name)).toEqual(expect.arrayContaining(['pix_key', 'tax_id']));
      expect(br.body.identity_fields.find((f: any) => f.name === 'national_id_kind').values).toEqual(['cpf']);
      const hk = await h.request('GET', '/sandbox/v1/channels/chats_hkd/requirements', { key: biz.sandbox });
      expect(hk.body.fields.map((f: any) => f.name)).toEqual(expect.arrayContaining(['swift_code', 'id_document_number']));
      expect(hk.body.fields.every((f: any) => !('check' in f))).toBe(true);
    });
  });
});

describe('channels: error', () => {
  describe('GET /channels', () => {
    it('400 validation_error for a malformed filter', async () => {
      const a = await h.request('GET', '/sandbox/v1/channels?recipient_type=fax', { key: biz.sandbox });
      expect(a.status).toBe(400);
      expect(a.body.error).toMatchObject({ code: 'validation_error', param: 'recipient_type' });
      const b = await h.request('GET', '/sandbox/v1/channels?country=Mexico', { key: biz.sandbox });
      expect(b.status).toBe(400);
      expect(b.body.error.param).toBe('country');
    });
  });

  describe('GET /channels/{channel}/requirements', () => {
    it('404 not_found naming the channel for an unknown id', async () => {
      const r = await h.request('GET', '/sandbox/v1/channels/carrier_pigeon/requirements', { key: biz.sandbox });
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'not_found', param: 'channel' });
      expect(r.body.error.request_id).toBe(r.headers.get('X-Request-ID'));
    });
  });
});

describe('channels: security', () => {
  describe('authentication and the OpenAPI document', () => {
    it('401 without a key and with a live key on the sandbox address', async () => {
      const none = await h.request('GET', '/sandbox/v1/channels');
      expect(none.status).toBe(401);
      const live = await h.request('GET', '/sandbox/v1/channels/spei_mxn/requirements', { key: biz.live });
      expect(live.status).toBe(401);
      expect(live.body.error.code).toBe('environment_mismatch');
    });

    it('documents the routes in the OpenAPI document', async () => {
      const r = await h.request('GET', '/sandbox/v1/openapi.json');
      expect(r.status).toBe(200);
      expect(r.body.paths['/channels'].get).toBeDefined();
      expect(r.body.paths['/channels/{channel}/requirements'].get).toBeDefined();
      expect(r.body.components.schemas.Channel.required).toEqual(
        expect.arrayContaining(['id', 'status', 'country', 'currency', 'rail', 'recipient_type', 'arrival', 'limits', 'fee']),
      );
    });
  });
});
