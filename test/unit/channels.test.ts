import { describe, expect, it } from 'vitest';
import {
  CHANNELS,
  channelAcceptsRecipientType,
  channelCoversCountry,
  channelStatus,
  findChannel,
  listedFee,
  RECIPIENT_TYPES,
  requirementsFor,
} from '../../src/domain/channels';
import { parseAmount, USDC } from '../../src/domain/money';
import { midRate, SANDBOX_MID_RATES } from '../../src/sandbox/fx';

const DURATION = /^P(?!$)(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/;

describe('catalog', () => {
  it('includes every channel the spec and the design name', () => {
    const ids = CHANNELS.map((c) => c.id);
    for (const id of [
      'claim_link',
      'pagomovil_ves',
      'sepa_eur',
      'ach_usd',
      'spei_mxn',
      'chats_hkd',
      'pix_brl',
      'stellar_usdc',
      'service_user_usdc',
    ]) {
      expect(ids).toContain(id);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('pays bank accounts in at least 40 distinct currencies', () => {
    const currencies = new Set(CHANNELS.filter((c) => c.recipientType === 'bank_account').map((c) => c.currency));
    expect(currencies.size).toBeGreaterThanOrEqual(40);
    for (const c of ['USD', 'EUR', 'MXN', 'HKD', 'BRL', 'GBP', 'INR', 'JPY', 'NGN', 'PHP']) expect(currencies).toContain(c);
  });

  it('has coherent entries: rates, limits, durations, patterns, fees', () => {
    for (const c of CHANNELS) {
      expect(Number(midRate(c.currency))).toBeGreaterThan(0);
      expect(c.limits.currency).toBe('USDC');
      expect(parseAmount(c.limits.min, USDC)).toBeLessThan(parseAmount(c.limits.max, USDC));
      expect(c.arrival.min).toMatch(DURATION);
      expect(c.arrival.max).toMatch(DURATION);
      expect(RECIPIENT_TYPES).toContain(c.recipientType);
      expect(c.method).toMatch(/^[a-z_]+$/);
      for (const f of c.requirements) {
        if (f.pattern) expect(() => new RegExp(f.pattern as string)).not.toThrow();
        if (f.type === 'enum') expect(f.values?.length).toBeGreaterThan(0);
      }
      if (c.currency === 'USD' || c.currency === 'USDC') expect(c.fxSpreadPercent).toBe('0');
      else expect(Number(c.fxSpreadPercent)).toBeGreaterThan(0);
      if (c.recipientType === 'bank_account') {
        expect(c.requirements.map((f) => f.name)).toContain('holder_name');
        expect(c.kycRequired).toBe(true);
      }
      // Only borderless channels have no country.
      if (c.country === null) expect(['claim_link', 'stellar_usdc', 'service_user_usdc']).toContain(c.id);
    }
  });

  it('rejects an unknown FX currency', () => {
    expect(midRate('MXN')).toBe('17.05');
    expect(SANDBOX_MID_RATES.USD).toBe('1');
    expect(() => midRate('XXX')).toThrow(/XXX/);
    expect(() => midRate('toString')).toThrow();
  });

  it('describes the claim link: no country, USD, 30-day maximum arrival, phone or email', () => {
    const c = findChannel('claim_link')!;
    expect(c.country).toBeNull();
    expect(c.currency).toBe('USD');
    expect(c.rail).toBe('claim_link');
    expect(c.recipientType).toBe('phone');
    expect(c.arrival.max).toBe('P30D');
    expect(channelAcceptsRecipientType(c, 'phone')).toBe(true);
    expect(channelAcceptsRecipientType(c, 'email')).toBe(true);
    expect(channelAcceptsRecipientType(c, 'bank_account')).toBe(false);
    expect(channelAcceptsRecipientType(findChannel('spei_mxn')!, 'bank_account')).toBe(true);
    expect(channelAcceptsRecipientType(findChannel('spei_mxn')!, 'phone')).toBe(false);
    expect(channelAcceptsRecipientType(findChannel('stellar_usdc')!, 'wallet')).toBe(true);
  });

  it('finds channels by id only', () => {
    expect(findChannel('spei_mxn')?.currency).toBe('MXN');
    expect(findChannel('nope')).toBeUndefined();
  });

  it('reaches every euro-area country through sepa_eur', () => {
    const sepa = findChannel('sepa_eur')!;
    expect(sepa.currency).toBe('EUR');
    expect(sepa.country).toBe('EU');
    for (const c of ['DE', 'FR', 'ES', 'IT', 'NL', 'BG']) expect(channelCoversCountry(sepa, c)).toBe(true);
    expect(channelCoversCountry(sepa, 'GB')).toBe(false);
    expect(channelCoversCountry(findChannel('spei_mxn')!, 'mx')).toBe(true);
  });

  it('is frozen', () => {
    const spei = findChannel('spei_mxn')!;
    expect(() => {
      (spei as { currency: string }).currency = 'USD';
    }).toThrow();
    expect(spei.currency).toBe('MXN');
  });
});

describe('requirementsFor', () => {
  it('gives the Mexican channel exactly holder_name, clabe, recipient_kind', () => {
    const r = requirementsFor(findChannel('spei_mxn')!);
    expect(r.channel).toBe('spei_mxn');
    expect(r.recipientType).toBe('bank_account');
    expect(r.limits).toEqual({ min: 1_000_000n, max: 50_000_000_000n, currency: 'USDC' });
    expect(r.fields.map(({ name, type, required, pattern, values }) => ({ name, type, required, pattern, values }))).toEqual([
      { name: 'holder_name', type: 'string', required: true, pattern: undefined, values: undefined },
      { name: 'clabe', type: 'string', required: true, pattern: '^[0-9]{18}$', values: undefined },
      { name: 'recipient_kind', type: 'enum', required: true, pattern: undefined, values: ['individual', 'business'] },
    ]);
    // The internal semantic check does not go on the wire.
    for (const f of r.fields) expect(f).not.toHaveProperty('check');
  });

  it('asks Brazil for a payment key and a tax id, Hong Kong for a SWIFT code and an id document', () => {
    const br = requirementsFor(findChannel('pix_brl')!).fields.map((f) => f.name);
    expect(br).toEqual(expect.arrayContaining(['pix_key', 'tax_id']));
    const hk = requirementsFor(findChannel('chats_hkd')!).fields;
    expect(hk.map((f) => f.name)).toEqual(expect.arrayContaining(['swift_code', 'id_document_number']));
    expect(hk.find((f) => f.name === 'swift_code')?.pattern).toBe('^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$');
  });

  it('gives pagomovil its five fields and the wallet its network and address', () => {
    const pm = requirementsFor(findChannel('pagomovil_ves')!).fields;
    expect(pm.map((f) => f.name)).toEqual(['phone_number', 'bank_code', 'national_id', 'holder_name', 'date_of_birth']);
    expect(pm.find((f) => f.name === 'bank_code')?.pattern).toBe('^[0-9]{4}$');
    expect(pm.find((f) => f.name === 'date_of_birth')?.type).toBe('date');
    const w = requirementsFor(findChannel('stellar_usdc')!).fields;
    expect(w).toEqual([
      expect.objectContaining({ name: 'network', type: 'enum', values: ['stellar'] }),
      expect.objectContaining({ name: 'address', pattern: '^G[A-Z2-7]{55}$' }),
    ]);
  });

  it('returns a copy the caller may change', () => {
    const r = requirementsFor(findChannel('spei_mxn')!);
    r.fields[2].values?.push('x');
    expect(findChannel('spei_mxn')!.requirements[2].values).toEqual(['individual', 'business']);
  });
});

describe('listedFee', () => {
  it('sums provider, service and FX spread percentages exactly, and the flats', () => {
    // spei_mxn: 0.3 % + 0.5 % + 0.35 % = 1.15 %; 0.25 + 0 USDC flat.
    expect(listedFee(findChannel('spei_mxn')!)).toEqual({ percent: '1.15', flat: '0.25', currency: 'USDC' });
    // ach_usd: 0 % + 0.5 % + 0 % (no conversion); 0.50 + 0 flat.
    expect(listedFee(findChannel('ach_usd')!)).toEqual({ percent: '0.5', flat: '0.50', currency: 'USDC' });
    // claim_link: 0 % + 1 % + 0 %; 0.25 flat.
    expect(listedFee(findChannel('claim_link')!)).toEqual({ percent: '1', flat: '0.25', currency: 'USDC' });
    // pagomovil_ves: 0.5 + 0.5 + 1.5 = 2.5 %; 0.1 flat.
    expect(listedFee(findChannel('pagomovil_ves')!)).toEqual({ percent: '2.5', flat: '0.10', currency: 'USDC' });
    expect(listedFee(findChannel('service_user_usdc')!)).toEqual({ percent: '0', flat: '0.00', currency: 'USDC' });
  });
});

describe('channelStatus', () => {
  it('is live in the sandbox unless paused, and paused in live without a working rail connection', () => {
    const spei = findChannel('spei_mxn')!;
    expect(channelStatus(spei, 'sandbox', new Set())).toBe('live');
    expect(channelStatus(spei, 'sandbox', new Set(['spei_mxn']))).toBe('paused');
    expect(channelStatus(spei, 'sandbox', new Set(['ach_usd']))).toBe('live');
    expect(channelStatus(spei, 'live', new Set())).toBe('paused');
  });

  it('is live in live only while its rail has a working connection, and PAUSED_CHANNELS still pauses it', () => {
    const sepa = findChannel('sepa_eur')!;
    expect(sepa.rail).toBe('sepa_credit_transfer');
    const working = (rail: string) => rail === 'sepa_credit_transfer';
    expect(channelStatus(sepa, 'live', new Set(), working)).toBe('live');
    expect(channelStatus(sepa, 'live', new Set(), () => false)).toBe('paused');
    expect(channelStatus(sepa, 'live', new Set(['sepa_eur']), working)).toBe('paused');
    expect(channelStatus(findChannel('spei_mxn')!, 'live', new Set(), working)).toBe('paused');
  });
});
