import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logging';
import { maskAccount, maskEmail, maskPersonalData, maskPersonalText, maskPhone } from '../../src/domain/masking';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * docs/security.md "Personal data in logs": API and workflow flows run with every log line captured
 * at the most verbose level (the service's logger, src/core/logging.ts); no line may hold an account
 * number, IBAN, phone number or e-mail address of the fixtures in full.
 */
const FIXTURES = {
  clabe: '002010077777777771',
  iban: 'DE89370400440532013000',
  ibanSpaced: 'DE89 3704 0044 0532 0130 00',
  phone: '+525512345678',
  email: 'ana.lopez@example.com',
  otherEmail: 'maria.perez@example.org',
  accountNumber: '000123456789',
};
const forbidden = [FIXTURES.clabe, FIXTURES.iban, FIXTURES.ibanSpaced, FIXTURES.phone, '525512345678', FIXTURES.email, FIXTURES.otherEmail, FIXTURES.accountNumber];

let h: Harness;
let biz: { id: string; sandbox: string; live: string };
const lines: string[] = [];

beforeAll(async () => {
  // As the worker process runs: the application role payouts_worker (docs/security.md "Database roles").
  h = await createHarness({ role: 'payouts_worker' });
  h.core.log = createLogger({ level: 'trace' }, new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) }));
  biz = await h.business();
});
afterAll(async () => h?.close());

const waitFor = async (check: () => Promise<boolean>, ms = 20_000) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out');
};

describe('personal data never reaches a log line in full', () => {
  it('masking helpers keep only what identifies the record for an operator', () => {
    expect(maskEmail(FIXTURES.email)).toBe('a••••@example.com');
    expect(maskPhone(FIXTURES.phone)).toBe('+52••••5678');
    expect(maskAccount(FIXTURES.clabe)).toBe('••••7771');
    expect(maskAccount(FIXTURES.ibanSpaced)).toBe('DE89••••3000');
    expect(maskPersonalText(`send to ${FIXTURES.email} or ${FIXTURES.phone}, iban ${FIXTURES.ibanSpaced}, clabe ${FIXTURES.clabe}; payout po_01k2345678901234`)).toBe(
      'send to a••••@example.com or +52••••5678, iban DE89••••3000, clabe ••••7771; payout po_01k2345678901234',
    );
    expect(maskPersonalData({ recipient: { bank_account: { account_number: '12', iban: FIXTURES.iban } }, amount: 5_000_000, nested: [{ phone_number: '5512345678' }] })).toEqual({
      recipient: { bank_account: { account_number: '••••', iban: 'DE89••••3000' } },
      amount: 5_000_000,
      nested: [{ phone_number: '55••••5678' }],
    });
  });

  it('API and workflow flows (Surface A bank payouts, Surface B claim links by phone and e-mail) log no fixture value', async () => {
    const A = '/sandbox/v1';
    const B = '/sandbox/claim/v1';
    expect((await h.request('POST', `${A}/sandbox/fund`, { key: biz.sandbox, body: { amount: '1000' } })).status).toBe(200);
    const mx = await h.request('POST', `${A}/recipients`, {
      key: biz.sandbox,
      body: { type: 'bank_account', country: 'MX', currency: 'MXN', name: 'Ana López', bank_account: { holder_name: 'Ana López', clabe: FIXTURES.clabe, recipient_kind: 'individual' } },
    });
    expect(mx.status).toBe(201);
    const de = await h.request('POST', `${A}/recipients`, { key: biz.sandbox, body: { type: 'bank_account', country: 'DE', bank_account: { holder_name: 'Max Muster', iban: FIXTURES.ibanSpaced } } });
    expect(de.status).toBe(201);
    // A refused one: the bad value is echoed nowhere in a log either.
    expect((await h.request('POST', `${A}/recipients`, { key: biz.sandbox, body: { type: 'bank_account', country: 'DE', bank_account: { holder_name: 'X', iban: 'DE00370400440532013000' } } })).status).toBe(400);
    const po = await h.request('POST', `${A}/payouts`, { key: biz.sandbox, body: { channel: 'spei_mxn', recipient_id: mx.body.id, source_amount: '10', reference: 'Invoice 42' } });
    expect(po.status).toBe(201);
    const inline = await h.request('POST', `${A}/payouts`, {
      key: biz.sandbox,
      body: { channel: 'spei_mxn', recipient: { type: 'bank_account', holder_name: 'Ana', clabe: FIXTURES.clabe, recipient_kind: 'individual' }, source_amount: '5' },
    });
    expect(inline.status).toBe(201);
    expect((await h.request('POST', `${B}/sandbox/fund`, { key: biz.sandbox, body: { amountUsd: '100.00' } })).status).toBe(200);
    const byPhone = await h.request('POST', `${B}/disbursements`, { key: biz.sandbox, body: { recipientPhone: FIXTURES.phone, amountUsd: '4.00' } });
    expect(byPhone.status).toBe(201);
    const byEmail = await h.request('POST', `${B}/disbursements`, { key: biz.sandbox, body: { recipientEmail: FIXTURES.email, amountUsd: '3.00' } });
    expect(byEmail.status).toBe(201);
    await waitFor(async () => (await h.request('GET', `${A}/payouts/${po.body.id}`, { key: biz.sandbox })).body.status === 'succeeded');
    // A module that logs a recipient or an error carrying personal data goes through the same logger.
    h.core.log.warn({ recipient: { bank_account: { account_number: FIXTURES.accountNumber, iban: FIXTURES.iban } }, to: FIXTURES.otherEmail }, `delivery to ${FIXTURES.phone} failed`);
    h.core.log.error({ err: new Error(`provider refused ${FIXTURES.otherEmail} / ${FIXTURES.accountNumber}`) }, 'notification failed');

    const text = lines.join('');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const v of forbidden) expect(text.includes(v), `a log line holds ${v}`).toBe(false);
    expect(text).toContain('m••••@example.org');
    expect(text).toContain('+52••••5678');
  });
});
