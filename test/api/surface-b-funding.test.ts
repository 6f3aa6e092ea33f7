/**
 * Surface B funding (spec "Endpoints", Surface B: /funding/accounts, /funding/crypto,
 * /funding/deposits) over the one funding core: the same virtual accounts and deposits as Surface A.
 */
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';
import { deriveDepositAddress, depositSigner, SANDBOX_DEPOSIT_SEED } from '../../src/solana/keys';

let h: Harness;
let biz: { id: string; sandbox: string; live: string };
let other: { id: string; sandbox: string; live: string };
const B = '/sandbox/claim/v1';

beforeAll(async () => {
  h = await createHarness();
  biz = await h.business({ verified: true });
  other = await h.business({ verified: true });
});
afterAll(async () => h?.close());

const get = (path: string, key = biz.sandbox) => h.request('GET', `${B}${path}`, { key });
const post = (path: string, body: unknown, key = biz.sandbox) => h.request('POST', `${B}${path}`, { key, body });

describe('funding accounts', () => {
  it('happy: opens a SPEI account (camelCase, details masked), lists it, reads it; Surface A sees the same account', async () => {
    const r = await post('/funding/accounts', { currency: 'MXN', label: 'Payroll MX' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: expect.stringMatching(/^va_/), currency: 'MXN', status: 'active', label: 'Payroll MX', referenceRequired: expect.any(Boolean) });
    expect(Object.keys(r.body.details).every((k) => !k.includes('_'))).toBe(true);
    expect((await get(`/funding/accounts/${r.body.id}`)).body.id).toBe(r.body.id);
    expect((await get('/funding/accounts')).body.data.map((a: { id: string }) => a.id)).toContain(r.body.id);
    expect((await h.request('GET', `/sandbox/v1/virtual-accounts/${r.body.id}`, { key: biz.sandbox })).status).toBe(200);
  });

  it('errors: unknown id is 404 virtual_account_not_found; bad currency 400', async () => {
    const r = await get('/funding/accounts/va_nope');
    expect([r.status, r.body.error, r.body.details.requestId]).toEqual([404, 'virtual_account_not_found', r.headers.get('X-Request-ID')]);
    const bad = await post('/funding/accounts', { currency: 'GBP' });
    expect([bad.status, bad.body.error, bad.body.details.param]).toEqual([400, 'validation_error', 'currency']);
  });

  it("security: another organisation's account is a 404; no key is 401", async () => {
    const r = await post('/funding/accounts', { currency: 'USD' });
    expect((await get(`/funding/accounts/${r.body.id}`, other.sandbox)).body.error).toBe('virtual_account_not_found');
    expect((await get('/funding/accounts', other.sandbox)).body.data.map((a: { id: string }) => a.id)).not.toContain(r.body.id);
    expect((await h.request('GET', `${B}/funding/accounts`)).status).toBe(401);
  });
});

describe('GET /funding/crypto', () => {
  it('a well-formed Solana address (base58, 32 bytes), stable per organisation, USDC on solana; live is 400 channel_unavailable', async () => {
    const a = await get('/funding/crypto');
    expect(a.status).toBe(200);
    expect(a.body).toEqual({
      walletAddress: expect.any(String),
      tokenAccount: expect.any(String),
      mint: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      network: 'solana',
      asset: 'USDC',
      minimumDeposit: '1.00',
    });
    expect(bs58.decode(a.body.walletAddress)).toHaveLength(32);
    expect((await get('/funding/crypto')).body.walletAddress).toBe(a.body.walletAddress);
    expect((await get('/funding/crypto', other.sandbox)).body.walletAddress).not.toBe(a.body.walletAddress);
    // The address is the public key of the business's deposit key (src/solana/keys.ts), not a hash:
    // the key derived from the sandbox seed has exactly this address, and its token account is the ATA.
    const derived = await deriveDepositAddress(SANDBOX_DEPOSIT_SEED, biz.id, 'sandbox', a.body.mint);
    expect([a.body.walletAddress, a.body.tokenAccount]).toEqual([derived.owner, derived.tokenAccount]);
    expect((await depositSigner(SANDBOX_DEPOSIT_SEED, biz.id, 'sandbox')).address).toBe(a.body.walletAddress);
    // Live: no address nobody holds a key for (money sent there would be lost), until a watched
    // deposit address is configured (docs/getting-paid.md "Crypto deposits").
    const live = await h.request('GET', '/claim/v1/funding/crypto', { key: biz.live });
    expect(live.status).toBe(400);
    expect(live.body.error).toBe('channel_unavailable');
    expect(live.body.walletAddress).toBeUndefined();
    expect((await h.request('GET', `${B}/funding/crypto`, { key: biz.live })).status).toBe(401);
  });

  it('live with a watched network configured: the business\'s address for the configured mint and minimum, stored and stable', async () => {
    const mint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
    const seed = 'ab'.repeat(32);
    const lh = await createHarness({ worker: false, env: { SOLANA_RPC_URL: 'http://127.0.0.1:1/', SOLANA_USDC_MINT: mint, SOLANA_DEPOSIT_SEED: seed, SOLANA_MINIMUM_DEPOSIT: '5' } });
    try {
      const b = await lh.business({ verified: true });
      const r = await lh.request('GET', '/claim/v1/funding/crypto', { key: b.live });
      expect(r.status).toBe(200);
      const derived = await deriveDepositAddress(seed, b.id, 'live', mint);
      expect(r.body).toEqual({ walletAddress: derived.owner, tokenAccount: derived.tokenAccount, mint, network: 'solana', asset: 'USDC', minimumDeposit: '5.00' });
      expect((await lh.request('GET', '/claim/v1/funding/crypto', { key: b.live })).body).toEqual(r.body);
      const rows = await lh.db.selectFrom('crypto_deposit_addresses').selectAll().where('business_id', '=', b.id).execute();
      expect(rows.map((x) => [x.environment, x.owner_address, x.derivation])).toEqual([['live', derived.owner, 'hmac-sha512-v1']]);
    } finally {
      await lh.close();
    }
  });
});

describe('GET /funding/deposits', () => {
  it('lists the deposits Surface A records, camelCase, filtered by currency; another organisation sees none of them', async () => {
    const acct = await post('/funding/accounts', { currency: 'EUR' });
    const dep = await h.request('POST', '/sandbox/v1/sandbox/deposits', {
      key: biz.sandbox,
      body: { virtual_account_id: acct.body.id, amount: '100.00', currency: 'EUR', reference: 'inv-9' },
    });
    expect(dep.status).toBeLessThan(300);
    const list = await get('/funding/deposits?currency=EUR');
    expect(list.status).toBe(200);
    expect(list.body.data[0]).toMatchObject({ id: dep.body.id, source: 'virtual_account', virtualAccountId: acct.body.id, amount: '100.00', currency: 'EUR', reference: 'inv-9' });
    expect((await get('/funding/deposits?currency=MXN')).body.data).toEqual([]);
    const bad = await get('/funding/deposits?currency=XXX');
    expect([bad.status, bad.body.error]).toEqual([400, 'validation_error']);
    expect((await get('/funding/deposits', other.sandbox)).body.data).toEqual([]);
  });
});
