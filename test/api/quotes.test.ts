import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/context';
import { findQuote } from '../../src/core/quotes';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
let biz: { id: string; sandbox: string; live: string };

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
});
afterAll(async () => h?.close());

const quote = (body: unknown, key = biz.sandbox) => h.request('POST', '/sandbox/v1/quotes', { key, body });

function expectError(r: { status: number; body: any }, status: number, code: string, param: string | null) {
  expect({ status: r.status, code: r.body?.error?.code, param: r.body?.error?.param }).toEqual({ status, code, param });
}

describe('quotes: happy', () => {
  describe('POST /quotes (spec "Quote")', () => {
    it('prices a source amount on spei_mxn with exact numbers', async () => {
      const r = await quote({ channel: 'spei_mxn', source_amount: '250.50' });
      expect(r.status).toBe(201);
      // spei_mxn: rate 17.05; provider 0.3 % + 0.25 flat, service 0.5 %, FX spread 0.35 %; fees on top.
      //   destination 250.50 * 17.05 = 4271.025 MXN -> 4271.02 (floor to cents)
      //   provider 0.7515 + 0.25 = 1.0015; service 1.2525; FX spread 0.87675; total 3.13075
      expect(r.body).toEqual({
        id: expect.stringMatching(/^qt_[0-9a-z]{26}$/),
        object: 'quote',
        channel: 'spei_mxn',
        source_amount: '250.50',
        source_currency: 'USDC',
        destination_amount: '4271.02',
        destination_currency: 'MXN',
        rate: '17.05',
        fees: { provider: '1.0015', service: '1.2525', fx_spread: '0.87675', total: '3.13075', currency: 'USDC' },
        arrival: { min: 'PT1M', max: 'PT30M' },
        expires_at: expect.any(String),
        created_at: expect.any(String),
      });
      expect(Date.parse(r.body.expires_at) - Date.parse(r.body.created_at)).toBe(60_000);
      expect(r.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });

    it('prices a destination amount: the recipient gets exactly what was asked', async () => {
      const r = await quote({ channel: 'spei_mxn', destination_amount: '1000.00' });
      expect(r.status).toBe(201);
      // source = ceil(1000 / 17.05) = 58.651026392... -> 58.651027 USDC
      //   provider 0.3 % = 0.175953081 -> 0.175954, + 0.25 = 0.425954
      //   service 0.5 % = 0.293255135 -> 0.293256; FX 0.35 % = 0.2052785945 -> 0.205279
      //   total 0.924489
      expect(r.body).toMatchObject({
        source_amount: '58.651027',
        destination_amount: '1000.00',
        destination_currency: 'MXN',
        fees: { provider: '0.425954', service: '0.293256', fx_spread: '0.205279', total: '0.924489', currency: 'USDC' },
      });
    });

    it('quotes a same-currency channel without FX spread', async () => {
      const r = await quote({ channel: 'ach_usd', source_amount: '10' });
      expect(r.status).toBe(201);
      // ach_usd: provider 0 % + 0.50 flat, service 0.5 % = 0.05, FX 0.
      expect(r.body).toMatchObject({
        source_amount: '10.00',
        destination_amount: '10.00',
        destination_currency: 'USD',
        rate: '1',
        fees: { provider: '0.50', service: '0.05', fx_spread: '0.00', total: '0.55' },
        arrival: { min: 'P1D', max: 'P3D' },
      });
    });

    it('stores the quote with minor units and micro-USDC fees, scoped to the caller', async () => {
      const r = await quote({ channel: 'spei_mxn', source_amount: '250.50' });
      const row = await h.db.selectFrom('quotes').selectAll().where('id', '=', r.body.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        business_id: biz.id,
        environment: 'sandbox',
        channel: 'spei_mxn',
        source_amount: 250_500_000n,
        destination_amount: 427_102n,
        destination_currency: 'MXN',
        rate: '17.05',
        fee_provider: 1_001_500n,
        fee_service: 1_252_500n,
        fee_fx_spread: 876_750n,
        fee_total: 3_130_750n,
        fixed_side: 'source',
      });
      expect(row.expires_at.toISOString()).toBe(r.body.expires_at);
      expect(row.created_at.toISOString()).toBe(r.body.created_at);

      const dest = await quote({ channel: 'spei_mxn', destination_amount: '1000.00' });
      const drow = await h.db.selectFrom('quotes').select(['fixed_side', 'source_amount']).where('id', '=', dest.body.id).executeTakeFirstOrThrow();
      expect(drow).toEqual({ fixed_side: 'destination', source_amount: 58_651_027n });

      const mine: Caller = { businessId: biz.id, environment: 'sandbox', keyId: 'k', role: 'owner', policy: null };
      expect((await findQuote(h.core, mine, r.body.id))?.price.fees.total).toBe(3_130_750n);
      const other = await h.business();
      expect(await findQuote(h.core, { ...mine, businessId: other.id }, r.body.id)).toBeUndefined();
      expect(await findQuote(h.core, { ...mine, environment: 'live' }, r.body.id)).toBeUndefined();
    });
  });
});

describe('quotes: error', () => {
  describe('POST /quotes (spec "Errors")', () => {
    it('400 validation_error when both or neither amount is given', async () => {
      expectError(await quote({ channel: 'spei_mxn', source_amount: '10', destination_amount: '170' }), 400, 'validation_error', 'destination_amount');
      expectError(await quote({ channel: 'spei_mxn' }), 400, 'validation_error', 'source_amount');
    });

    it('400 validation_error for an unknown or missing channel', async () => {
      expectError(await quote({ channel: 'carrier_pigeon', source_amount: '10' }), 400, 'validation_error', 'channel');
      expectError(await quote({ source_amount: '10' }), 400, 'validation_error', 'channel');
    });

    it('400 validation_error naming the amount for too many decimals, a bad format or zero', async () => {
      // USDC takes up to 6 decimals, MXN 2, JPY none.
      expectError(await quote({ channel: 'spei_mxn', source_amount: '10.1234567' }), 400, 'validation_error', 'source_amount');
      expectError(await quote({ channel: 'spei_mxn', destination_amount: '100.123' }), 400, 'validation_error', 'destination_amount');
      expectError(await quote({ channel: 'bank_jpy', destination_amount: '1000.5' }), 400, 'validation_error', 'destination_amount');
      expectError(await quote({ channel: 'spei_mxn', source_amount: '1e3' }), 400, 'validation_error', 'source_amount');
      expectError(await quote({ channel: 'spei_mxn', source_amount: '-5' }), 400, 'validation_error', 'source_amount');
      expectError(await quote({ channel: 'spei_mxn', source_amount: '0' }), 400, 'validation_error', 'source_amount');
      expectError(await quote({ channel: 'spei_mxn', source_amount: 100 }), 400, 'validation_error', 'source_amount');
      // Six USDC decimals are fine.
      expect((await quote({ channel: 'spei_mxn', source_amount: '10.123456' })).status).toBe(201);
    });

    it('400 amount_out_of_range outside the channel limits (1 - 50,000 USDC on spei_mxn), inclusive bounds accepted', async () => {
      expectError(await quote({ channel: 'spei_mxn', source_amount: '0.99' }), 400, 'amount_out_of_range', 'source_amount');
      expectError(await quote({ channel: 'spei_mxn', source_amount: '50000.000001' }), 400, 'amount_out_of_range', 'source_amount');
      // 10 MXN needs 0.586511 USDC, below the minimum.
      expectError(await quote({ channel: 'spei_mxn', destination_amount: '10.00' }), 400, 'amount_out_of_range', 'destination_amount');
      const min = await quote({ channel: 'spei_mxn', source_amount: '1' });
      expect(min.status).toBe(201);
      expect(min.body.destination_amount).toBe('17.05');
      expect((await quote({ channel: 'spei_mxn', source_amount: '50000' })).status).toBe(201);
    });

    it('400 channel_unavailable on a paused channel', async () => {
      const paused = await createHarness({ worker: false, env: { PAUSED_CHANNELS: 'sepa_eur' } });
      try {
        const b = await paused.business();
        const r = await paused.request('POST', '/sandbox/v1/quotes', { key: b.sandbox, body: { channel: 'sepa_eur', source_amount: '10' } });
        expectError(r, 400, 'channel_unavailable', 'channel');
        const ok = await paused.request('POST', '/sandbox/v1/quotes', { key: b.sandbox, body: { channel: 'spei_mxn', source_amount: '10' } });
        expect(ok.status).toBe(201);
        expect(await paused.db.selectFrom('quotes').select('id').where('channel', '=', 'sepa_eur').execute()).toHaveLength(0);
      } finally {
        await paused.close();
      }
    });

    it('400 channel_unavailable in live, where no rail adapter is configured', async () => {
      const r = await h.request('POST', '/v1/quotes', { key: biz.live, body: { channel: 'spei_mxn', source_amount: '10' } });
      expectError(r, 400, 'channel_unavailable', 'channel');
    });

    it('400 validation_error for a malformed JSON body', async () => {
      const r = await h.request('POST', '/sandbox/v1/quotes', {
        key: biz.sandbox,
        rawBody: '{"channel": ',
        headers: { 'Content-Type': 'application/json' },
      });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
    });
  });
});

describe('quotes: security', () => {
  describe('authentication and the OpenAPI document', () => {
    it('401 without a key, with a live key on the sandbox address, and with an unknown key', async () => {
      const body = { channel: 'spei_mxn', source_amount: '10' };
      expect((await h.request('POST', '/sandbox/v1/quotes', { body })).status).toBe(401);
      const live = await quote(body, biz.live);
      expectError(live, 401, 'environment_mismatch', null);
      expect((await quote(body, 'sk_test_unknown')).status).toBe(401);
    });

    it('documents POST /quotes in the OpenAPI document', async () => {
      const r = await h.request('GET', '/sandbox/v1/openapi.json');
      expect(r.body.paths['/quotes'].post.responses['201']).toBeDefined();
      expect(r.body.components.schemas.Quote.required).toEqual(expect.arrayContaining(['id', 'expires_at', 'fees', 'rate']));
    });
  });
});
