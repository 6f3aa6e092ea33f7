import { describe, expect, it } from 'vitest';
import { findChannel } from '../../src/domain/channels';
import { ApiError } from '../../src/domain/errors';
import {
  isValidAbaRouting,
  isValidClabe,
  maskRecipientDetails,
  phoneCountry,
  receivability,
  validateInlineRecipient,
  validateRecipientDetails,
} from '../../src/domain/recipients';

const VALID_CLABE = '002010077777777771';
const VALID_IBAN = 'DE89370400440532013000';
const STELLAR = 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H';
const MX_PHONE = '+525512345678';

function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected an ApiError');
}

function expectValidationError(fn: () => unknown, param: string): ApiError {
  const e = apiErrorOf(fn);
  expect({ status: e.status, code: e.code, param: e.param }).toEqual({ status: 400, code: 'validation_error', param });
  return e;
}

describe('check digits', () => {
  it('validates the CLABE check digit (weights 3,7,1)', () => {
    expect(isValidClabe(VALID_CLABE)).toBe(true);
    expect(isValidClabe('002010077777777772')).toBe(false);
    expect(isValidClabe('00201007777777777')).toBe(false);
  });

  it('validates the ABA routing checksum', () => {
    expect(isValidAbaRouting('021000021')).toBe(true);
    expect(isValidAbaRouting('011000015')).toBe(true);
    expect(isValidAbaRouting('021000022')).toBe(false);
  });
});

describe('validateRecipientDetails: bank_account', () => {
  it('is ready on spei_mxn with a valid CLABE', () => {
    const r = validateRecipientDetails(
      'bank_account',
      { holder_name: ' Ana López ', clabe: VALID_CLABE, recipient_kind: 'individual' },
      { country: 'MX' },
    );
    expect(r).toMatchObject({ status: 'ready', missingFields: [], channels: ['spei_mxn'] });
    expect(r.details.holder_name).toBe('Ana López');
  });

  it('refuses a CLABE with a wrong check digit or length', () => {
    const e = expectValidationError(
      () => validateRecipientDetails('bank_account', { clabe: '002010077777777772' }, { country: 'MX' }),
      'bank_account.clabe',
    );
    expect(e.message).toMatch(/check digit/);
    expectValidationError(
      () => validateRecipientDetails('bank_account', { clabe: '12345' }, { currency: 'MXN' }),
      'bank_account.clabe',
    );
  });

  it('lists missing fields and fills recipient_kind from the recipient kind', () => {
    const r = validateRecipientDetails('bank_account', { clabe: VALID_CLABE }, { country: 'MX' });
    expect(r).toMatchObject({ status: 'needs_fields', missingFields: ['holder_name', 'recipient_kind'], channels: [] });
    const k = validateRecipientDetails('bank_account', { clabe: VALID_CLABE }, { country: 'MX', kind: 'business' });
    expect(k.missingFields).toEqual(['holder_name']);
    expect(k.details.recipient_kind).toBe('business');
  });

  it('refuses an enum value outside its values', () => {
    expectValidationError(
      () => validateRecipientDetails('bank_account', { recipient_kind: 'alien' }, { country: 'MX' }),
      'bank_account.recipient_kind',
    );
  });

  it('accepts a valid IBAN, normalised, and finds the corridor from it', () => {
    const r = validateRecipientDetails('bank_account', { holder_name: 'Max Muster', iban: 'de89 3704 0044 0532 0130 00' }, {});
    expect(r).toMatchObject({ status: 'ready', channels: ['sepa_eur'] });
    expect(r.details.iban).toBe(VALID_IBAN);
    expect(validateRecipientDetails('bank_account', { holder_name: 'M', iban: VALID_IBAN }, { country: 'DE' }).channels).toEqual([
      'sepa_eur',
    ]);
  });

  it('refuses an IBAN with a bad checksum or from a country the channel does not reach', () => {
    expectValidationError(
      () => validateRecipientDetails('bank_account', { iban: 'DE89370400440532013001' }, { country: 'DE' }),
      'bank_account.iban',
    );
    expectValidationError(
      () => validateRecipientDetails('bank_account', { iban: VALID_IBAN }, { country: 'CH' }),
      'bank_account.iban',
    );
  });

  it('validates an optional BIC when present', () => {
    expect(
      validateRecipientDetails('bank_account', { holder_name: 'M', iban: VALID_IBAN, bic: 'cobadeffxxx' }, { country: 'DE' })
        .details.bic,
    ).toBe('COBADEFFXXX');
    expectValidationError(
      () => validateRecipientDetails('bank_account', { holder_name: 'M', iban: VALID_IBAN, bic: 'CO1' }, { country: 'DE' }),
      'bank_account.bic',
    );
  });

  it('validates the ABA routing number on ach_usd', () => {
    const details = {
      holder_name: 'Jo Doe',
      account_number: '000123456789',
      routing_number: '021000021',
      account_type: 'checking',
      recipient_kind: 'individual',
    };
    expect(validateRecipientDetails('bank_account', details, { currency: 'USD' }).channels).toEqual(['ach_usd']);
    expectValidationError(
      () => validateRecipientDetails('bank_account', { ...details, routing_number: '021000022' }, { country: 'US' }),
      'bank_account.routing_number',
    );
  });

  it('lists every ready channel of a corridor with several rails', () => {
    const r = validateRecipientDetails(
      'bank_account',
      { holder_name: 'Juan', bank_code: 'BOPIPHMM', account_number: '1234567890' },
      { country: 'PH' },
    );
    expect(r.channels.sort()).toEqual(['instapay_php', 'pesonet_php']);
  });

  it('refuses a bank account without a corridor (422 recipient_not_ready, param country)', () => {
    for (const ctx of [{}, { country: 'AQ' }, { country: 'MX', currency: 'EUR' }]) {
      const e = apiErrorOf(() => validateRecipientDetails('bank_account', { account_number: '1234' }, ctx));
      expect({ status: e.status, code: e.code, param: e.param }).toEqual({
        status: 422,
        code: 'recipient_not_ready',
        param: 'country',
      });
    }
  });

  it('refuses non-string values', () => {
    expectValidationError(
      () => validateRecipientDetails('bank_account', { clabe: 2010077777777771 }, { country: 'MX' }),
      'bank_account.clabe',
    );
  });
});

describe('validateRecipientDetails: other types', () => {
  it('accepts an E.164 phone and pays it by claim link', () => {
    expect(validateRecipientDetails('phone', { number: '+14155552671' }, {})).toMatchObject({
      status: 'ready',
      missingFields: [],
      channels: ['claim_link'],
    });
    expect(validateRecipientDetails('phone', {}, {})).toMatchObject({
      status: 'needs_fields',
      missingFields: ['number'],
      channels: [],
    });
  });

  it('refuses a phone that is not valid E.164', () => {
    for (const bad of ['14155552671', '+1415555', '+1 415 555 2671', 'call me', '+5215512345678']) {
      expectValidationError(() => validateRecipientDetails('phone', { number: bad }, {}), 'phone.number');
    }
  });

  it('accepts an e-mail and refuses a malformed one', () => {
    expect(validateRecipientDetails('email', { address: 'ana@example.com' }, {}).channels).toEqual(['claim_link']);
    for (const bad of ['ana', 'ana@', '@example.com', 'ana @example.com']) {
      expectValidationError(() => validateRecipientDetails('email', { address: bad }, {}), 'email.address');
    }
  });

  const pagomovil = {
    phone_number: '+584141234567',
    bank_code: '0102',
    national_id: 'V12345678',
    holder_name: 'María Pérez',
    date_of_birth: '1990-05-17',
  };

  it('accepts a full pagomovil recipient', () => {
    expect(validateRecipientDetails('pagomovil', pagomovil, {})).toMatchObject({
      status: 'ready',
      channels: ['pagomovil_ves'],
    });
    expect(validateRecipientDetails('pagomovil', { ...pagomovil, date_of_birth: undefined }, {}).missingFields).toEqual([
      'date_of_birth',
    ]);
  });

  it('refuses pagomovil bank codes, dates and phones that do not fit', () => {
    expectValidationError(() => validateRecipientDetails('pagomovil', { ...pagomovil, bank_code: '102' }, {}), 'pagomovil.bank_code');
    expectValidationError(
      () => validateRecipientDetails('pagomovil', { ...pagomovil, date_of_birth: '1990-02-30' }, {}),
      'pagomovil.date_of_birth',
    );
    expectValidationError(
      () => validateRecipientDetails('pagomovil', { ...pagomovil, date_of_birth: '17/05/1990' }, {}),
      'pagomovil.date_of_birth',
    );
    expectValidationError(
      () => validateRecipientDetails('pagomovil', { ...pagomovil, phone_number: '+14155552671' }, {}),
      'pagomovil.phone_number',
    );
  });

  it('accepts a stellar wallet and refuses other networks or addresses', () => {
    expect(STELLAR).toHaveLength(56);
    expect(validateRecipientDetails('wallet', { network: 'stellar', address: STELLAR }, {}).channels).toEqual(['stellar_usdc']);
    expectValidationError(
      () => validateRecipientDetails('wallet', { network: 'ethereum', address: STELLAR }, {}),
      'wallet.network',
    );
    expectValidationError(
      () => validateRecipientDetails('wallet', { network: 'stellar', address: '0xabc' }, {}),
      'wallet.address',
    );
  });

  it('accepts a service user handle', () => {
    expect(validateRecipientDetails('service_user', { handle: '@maria' }, {}).channels).toEqual(['service_user_usdc']);
    expectValidationError(() => validateRecipientDetails('service_user', { handle: 'a b' }, {}), 'service_user.handle');
  });

  it('refuses an unknown type', () => {
    expectValidationError(() => validateRecipientDetails('fax' as never, {}, {}), 'type');
  });
});

describe('validateInlineRecipient', () => {
  const claim = findChannel('claim_link')!;
  const spei = findChannel('spei_mxn')!;

  it('maps phone and e-mail recipients onto the claim link', () => {
    expect(validateInlineRecipient({ type: 'phone', number: '+14155552671' }, claim)).toEqual({
      type: 'phone',
      details: { number: '+14155552671' },
    });
    expect(validateInlineRecipient({ type: 'email', address: 'ana@example.com' }, claim)).toEqual({
      type: 'email',
      details: { address: 'ana@example.com' },
    });
  });

  it('refuses a recipient type the channel does not pay', () => {
    expectValidationError(() => validateInlineRecipient({ type: 'phone', number: '+14155552671' }, spei), 'recipient.type');
    expectValidationError(() => validateInlineRecipient({ type: 'wallet', address: STELLAR }, claim), 'recipient.type');
  });

  it('names the invalid field under recipient.', () => {
    expectValidationError(() => validateInlineRecipient({ type: 'phone', number: '5512345678' }, claim), 'recipient.number');
    expectValidationError(
      () => validateInlineRecipient({ type: 'bank_account', holder_name: 'A', clabe: '002010077777777772', recipient_kind: 'business' }, spei),
      'recipient.clabe',
    );
  });

  it('takes bank fields flat or inside bank_account', () => {
    const expected = { holder_name: 'Ana', clabe: VALID_CLABE, recipient_kind: 'individual' };
    expect(validateInlineRecipient({ type: 'bank_account', ...expected }, spei).details).toEqual(expected);
    expect(
      validateInlineRecipient({ type: 'bank_account', holder_name: 'Ana', bank_account: { clabe: VALID_CLABE, recipient_kind: 'individual' } }, spei)
        .details,
    ).toEqual(expected);
  });

  it('is 422 recipient_not_ready when required fields are missing, listing them', () => {
    const e = apiErrorOf(() => validateInlineRecipient({ type: 'bank_account', holder_name: 'Ana' }, spei));
    expect(e.status).toBe(422);
    expect(e.code).toBe('recipient_not_ready');
    expect(e.message).toContain('clabe');
    expect(e.message).toContain('recipient_kind');
    expect(e.details).toEqual({ missing_fields: ['clabe', 'recipient_kind'] });
    expect(apiErrorOf(() => validateInlineRecipient({ type: 'phone' }, claim)).code).toBe('recipient_not_ready');
  });

  it('validates a pagomovil recipient and a service user', () => {
    const r = validateInlineRecipient(
      {
        type: 'pagomovil',
        phone_number: '+584141234567',
        bank_code: '0102',
        national_id: 'V12345678',
        holder_name: 'María',
        date_of_birth: '1990-05-17',
      },
      findChannel('pagomovil_ves')!,
    );
    expect(r.details.bank_code).toBe('0102');
    expect(validateInlineRecipient({ type: 'service_user', address: '@maria' }, findChannel('service_user_usdc')!).details).toEqual({
      handle: '@maria',
    });
  });
});

describe('maskRecipientDetails', () => {
  it('leaves only the last four characters of account fields', () => {
    const m = maskRecipientDetails('bank_account', {
      holder_name: 'Ana López',
      clabe: VALID_CLABE,
      iban: VALID_IBAN,
      account_number: '000123456789',
      routing_number: '021000021',
      recipient_kind: 'individual',
    });
    expect(m).toEqual({
      holder_name: 'Ana López',
      clabe: '••••7771',
      iban: '••••3000',
      account_number: '••••6789',
      routing_number: '021000021',
      recipient_kind: 'individual',
    });
    expect(JSON.stringify(m)).not.toContain('0020100777');
  });

  it('hides identity fields but the last two characters, and the pagomovil phone', () => {
    const m = maskRecipientDetails('pagomovil', {
      phone_number: '+584141234567',
      bank_code: '0102',
      national_id: 'V12345678',
      holder_name: 'María',
      date_of_birth: '1990-05-17',
    });
    expect(m).toEqual({
      phone_number: '••••4567',
      bank_code: '0102',
      national_id: '••••78',
      holder_name: 'María',
      date_of_birth: '••••17',
    });
    expect(maskRecipientDetails('bank_account', { tax_id: '12345678901', id_document_number: 'A1234567' })).toEqual({
      tax_id: '••••01',
      id_document_number: '••••67',
    });
  });

  it('keeps the contact of phone and e-mail recipients, and is idempotent', () => {
    expect(maskRecipientDetails('phone', { number: '+14155552671' })).toEqual({ number: '+14155552671' });
    expect(maskRecipientDetails('email', { address: 'ana@example.com' })).toEqual({ address: 'ana@example.com' });
    const once = maskRecipientDetails('bank_account', { clabe: VALID_CLABE, account_number: '12' });
    expect(once).toEqual({ clabe: '••••7771', account_number: '••••' });
    expect(maskRecipientDetails('bank_account', once)).toEqual(once);
  });
});

describe('receivability', () => {
  it('finds Mexico and SPEI for a Mexican number', () => {
    expect(phoneCountry(MX_PHONE)).toBe('MX');
    expect(receivability({ type: 'phone', number: MX_PHONE })).toEqual({
      receivable: true,
      country: 'MX',
      methods: ['spei_bank', 'service_wallet'],
      kycRequiredFor: ['spei_bank'],
    });
  });

  it('lists the local methods of other countries', () => {
    expect(receivability({ type: 'phone', number: '+584141234567' }).methods).toEqual(['pagomovil', 'service_wallet']);
    expect(receivability({ type: 'phone', number: '+4915123456789' })).toMatchObject({
      country: 'DE',
      methods: ['sepa_bank', 'service_wallet'],
    });
    expect(receivability({ type: 'phone', number: '+639171234567' }).methods).toEqual([
      'pesonet_bank',
      'instapay_bank',
      'service_wallet',
    ]);
  });

  it('is not receivable where no local channel exists', () => {
    expect(receivability({ type: 'phone', number: '+79123456789' })).toEqual({
      receivable: false,
      country: 'RU',
      methods: ['service_wallet'],
      kycRequiredFor: [],
    });
  });

  it('answers an e-mail without a country', () => {
    expect(receivability({ type: 'email', address: 'ana@example.com' })).toEqual({
      receivable: true,
      country: null,
      methods: ['service_wallet'],
      kycRequiredFor: [],
    });
  });

  it('refuses an invalid phone or e-mail', () => {
    expectValidationError(() => receivability({ type: 'phone', number: '5512345678' }), 'number');
    expectValidationError(() => receivability({ type: 'phone' }), 'number');
    expectValidationError(() => receivability({ type: 'email', address: 'nope' }), 'address');
  });
});
