/**
 * The channel catalog (spec "Channel", "ChannelRequirements") and what derives from it: status,
 * the caller's listed fee and the requirements resource. Pure data and functions, no I/O, so
 * workflows may import it.
 *
 * Units: limits, flat fees are USDC decimal strings; percentages are decimal strings ("0.5" means
 * 0.5 %); arrival times are ISO 8601 durations ("PT5M", "P1D", "P30D").
 *
 * Country conventions:
 * - `country` is an ISO 3166-1 alpha-2 code for single-country channels.
 * - `null` for channels that have no country at all: `claim_link` (the spec's example), and the
 *   borderless `stellar_usdc` wallet and `service_user_usdc` channels (an on-chain address or a
 *   user of the service has no country either).
 * - `sepa_eur` covers every euro-area country; its `country` is "EU" (the ISO 3166-1 exceptionally
 *   reserved code for the European Union) and the countries it reaches are in `coverage`. Use
 *   {@link channelCoversCountry} rather than comparing `country` directly.
 */

/** Spec "Shared types": RecipientType. */
export type RecipientType = 'bank_account' | 'pagomovil' | 'wallet' | 'phone' | 'email' | 'service_user';

/** Every {@link RecipientType}, in spec order. */
export const RECIPIENT_TYPES: readonly RecipientType[] = Object.freeze([
  'bank_account',
  'pagomovil',
  'wallet',
  'phone',
  'email',
  'service_user',
]);

/**
 * A semantic check applied by src/domain/recipients.ts beyond `pattern`: CLABE check digit, IBAN
 * checksum (and that the IBAN's country is one the channel reaches), BIC structure, ABA routing
 * checksum. Internal: {@link requirementsFor} does not put it on the wire.
 */
export type FieldCheck = 'clabe' | 'iban' | 'bic' | 'aba_routing';

/**
 * One requirement of a channel (spec "ChannelRequirements" fields element). `type` 'date' is
 * YYYY-MM-DD, 'phone' is E.164, 'email' an e-mail address, 'enum' one of `values`. `pattern` is a
 * regular expression (source text, anchored) the trimmed value must match.
 */
export interface RequirementField {
  name: string;
  type: 'string' | 'enum' | 'date' | 'email' | 'phone';
  required: boolean;
  pattern?: string;
  values?: string[];
  description?: string;
  /** Internal semantic check (see {@link FieldCheck}); stripped from the wire shape. */
  check?: FieldCheck;
}

/**
 * A catalog entry. `method` is the receivability method name (spec "Receivability": methods,
 * e.g. 'spei_bank', 'service_wallet'). `coverage` lists the countries a multi-country channel
 * reaches (sepa_eur); single-country channels leave it out. Fees and limits are USDC decimal
 * strings; `fx_spread_percent` is "0" when no conversion happens (USD, USDC).
 */
export interface ChannelDefinition {
  id: string;
  country: string | null;
  coverage?: readonly string[];
  currency: string;
  rail: string;
  recipient_type: RecipientType;
  arrival: { min: string; max: string };
  limits: { min: string; max: string; currency: 'USDC' };
  provider_fee: { percent: string; flat: string };
  service_fee: { percent: string; flat: string };
  fx_spread_percent: string;
  requirements: RequirementField[];
  method: string;
  kyc_required: boolean;
}

// ---------------------------------------------------------------------------------------------
// Requirement field building blocks

const HOLDER_NAME: RequirementField = {
  name: 'holder_name',
  type: 'string',
  required: true,
  description: 'Full name of the account holder as the bank knows it',
};
const RECIPIENT_KIND: RequirementField = {
  name: 'recipient_kind',
  type: 'enum',
  required: true,
  values: ['individual', 'business'],
};
const IBAN: RequirementField = {
  name: 'iban',
  type: 'string',
  required: true,
  pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$',
  description: 'IBAN in electronic format (spaces are removed before validation)',
  check: 'iban',
};
const SWIFT_PATTERN = '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$';
const SWIFT_CODE: RequirementField = {
  name: 'swift_code',
  type: 'string',
  required: true,
  pattern: SWIFT_PATTERN,
  description: 'SWIFT/BIC of the receiving bank (8 or 11 characters)',
  check: 'bic',
};

/** A required string field with a pattern. */
function field(name: string, pattern: string, description?: string): RequirementField {
  return { name, type: 'string', required: true, pattern, ...(description ? { description } : {}) };
}

/** E.164: a plus, a non-zero digit, at most 15 digits in all. */
export const E164_PATTERN = '^\\+[1-9][0-9]{1,14}$';

/** Recipient `phone` fields (spec "Recipient": phone.number, E.164). */
const PHONE_FIELDS: RequirementField[] = [
  { name: 'number', type: 'phone', required: true, pattern: E164_PATTERN, description: 'Phone number in E.164' },
];
/** Recipient `email` fields (spec "Recipient": email.address). */
const EMAIL_FIELDS: RequirementField[] = [{ name: 'address', type: 'email', required: true }];
/** Recipient `pagomovil` fields (spec "Recipient": pagomovil object). */
const PAGOMOVIL_FIELDS: RequirementField[] = [
  {
    name: 'phone_number',
    type: 'phone',
    required: true,
    pattern: '^\\+58[0-9]{10}$',
    description: 'Venezuelan mobile number registered for Pago Móvil, E.164 (+58...)',
  },
  field('bank_code', '^[0-9]{4}$', 'Four-digit Venezuelan bank code, e.g. 0102'),
  field('national_id', '^[VEJPG][0-9]{5,9}$', 'Cédula or RIF, e.g. V12345678'),
  HOLDER_NAME,
  { name: 'date_of_birth', type: 'date', required: true, description: 'YYYY-MM-DD' },
];
/** Recipient `wallet` fields (spec "Recipient": wallet.network enum stellar, wallet.address). */
const WALLET_FIELDS: RequirementField[] = [
  { name: 'network', type: 'enum', required: true, values: ['stellar'] },
  field('address', '^G[A-Z2-7]{55}$', 'Stellar account id (G...)'),
];
/** Recipient `service_user` fields (spec "Recipient": service_user.handle). */
const SERVICE_USER_FIELDS: RequirementField[] = [
  field('handle', '^@?[A-Za-z0-9_.]{3,32}$', 'Handle of a user of the service, e.g. @maria'),
];

/**
 * The fixed fields of every recipient type except bank_account (whose fields come from the
 * channel requirements of its corridor). Spec "Recipient" table.
 */
export const RECIPIENT_TYPE_FIELDS: Readonly<Record<Exclude<RecipientType, 'bank_account'>, readonly RequirementField[]>> =
  deepFreeze({
    pagomovil: PAGOMOVIL_FIELDS,
    wallet: WALLET_FIELDS,
    phone: PHONE_FIELDS,
    email: EMAIL_FIELDS,
    service_user: SERVICE_USER_FIELDS,
  });

// ---------------------------------------------------------------------------------------------
// Catalog

/** Euro-area countries reached by sepa_eur (Bulgaria joined the euro on 2026-01-01). */
const EURO_AREA = [
  'AT', 'BE', 'BG', 'CY', 'DE', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PT',
  'SI', 'SK',
] as const;

interface BankSpec {
  id: string;
  country: string;
  currency: string;
  rail: string;
  requirements: RequirementField[];
  coverage?: readonly string[];
  arrival?: { min: string; max: string };
  limits?: { min: string; max: string };
  provider_fee?: { percent: string; flat: string };
  service_fee?: { percent: string; flat: string };
  fx_spread_percent?: string;
  method?: string;
}

const SERVICE_FEE = { percent: '0.5', flat: '0' };

/** A bank_account channel with the catalog's defaults (1 - 25,000 USDC, 1-3 days, KYC at claim). */
function bank(spec: BankSpec): ChannelDefinition {
  return {
    id: spec.id,
    country: spec.country,
    ...(spec.coverage ? { coverage: spec.coverage } : {}),
    currency: spec.currency,
    rail: spec.rail,
    recipient_type: 'bank_account',
    arrival: spec.arrival ?? { min: 'P1D', max: 'P3D' },
    limits: { ...(spec.limits ?? { min: '1', max: '25000' }), currency: 'USDC' },
    provider_fee: spec.provider_fee ?? { percent: '0.2', flat: '0.5' },
    service_fee: spec.service_fee ?? SERVICE_FEE,
    fx_spread_percent: spec.fx_spread_percent ?? '0.4',
    requirements: spec.requirements,
    method: spec.method ?? `${spec.rail}_bank`,
    kyc_required: true,
  };
}

/** A bank channel whose only account identifier is an IBAN (plus the holder's name). */
function ibanBank(id: string, country: string, currency: string, rail: string, extra: Partial<BankSpec> = {}) {
  return bank({ id, country, currency, rail, requirements: [HOLDER_NAME, IBAN], ...extra });
}

const BANK_CHANNELS: ChannelDefinition[] = [
  // --- Americas
  bank({
    id: 'ach_usd',
    country: 'US',
    currency: 'USD',
    rail: 'ach',
    arrival: { min: 'P1D', max: 'P3D' },
    limits: { min: '1', max: '50000' },
    provider_fee: { percent: '0', flat: '0.5' },
    fx_spread_percent: '0',
    requirements: [
      HOLDER_NAME,
      field('account_number', '^[0-9]{4,17}$', 'US bank account number'),
      { ...field('routing_number', '^[0-9]{9}$', 'ABA routing number (checksum validated)'), check: 'aba_routing' },
      { name: 'account_type', type: 'enum', required: true, values: ['checking', 'savings'] },
      RECIPIENT_KIND,
    ],
  }),
  bank({
    id: 'spei_mxn',
    country: 'MX',
    currency: 'MXN',
    rail: 'spei',
    arrival: { min: 'PT1M', max: 'PT30M' },
    limits: { min: '1', max: '50000' },
    provider_fee: { percent: '0.3', flat: '0.25' },
    fx_spread_percent: '0.35',
    requirements: [
      HOLDER_NAME,
      { ...field('clabe', '^[0-9]{18}$', '18-digit CLABE (check digit validated)'), check: 'clabe' },
      RECIPIENT_KIND,
    ],
  }),
  bank({
    id: 'pix_brl',
    country: 'BR',
    currency: 'BRL',
    rail: 'pix',
    arrival: { min: 'PT10S', max: 'PT1H' },
    limits: { min: '1', max: '20000' },
    provider_fee: { percent: '0.25', flat: '0.1' },
    fx_spread_percent: '0.5',
    requirements: [
      HOLDER_NAME,
      { name: 'pix_key', type: 'string', required: true, description: 'Pix key: CPF, CNPJ, e-mail, phone or random key' },
      field('tax_id', '^[0-9]{11}([0-9]{3})?$', 'CPF (11 digits) or CNPJ (14 digits), digits only'),
      RECIPIENT_KIND,
    ],
  }),
  bank({
    id: 'bank_cad',
    country: 'CA',
    currency: 'CAD',
    rail: 'eft',
    requirements: [
      HOLDER_NAME,
      field('institution_number', '^[0-9]{3}$'),
      field('transit_number', '^[0-9]{5}$'),
      field('account_number', '^[0-9]{7,12}$'),
    ],
  }),
  bank({
    id: 'bank_cop',
    country: 'CO',
    currency: 'COP',
    rail: 'ach_colombia',
    fx_spread_percent: '0.6',
    requirements: [
      HOLDER_NAME,
      field('bank_code', '^[0-9]{3,4}$'),
      field('account_number', '^[0-9]{6,20}$'),
      { name: 'account_type', type: 'enum', required: true, values: ['checking', 'savings'] },
      field('id_document_number', '^[0-9]{6,11}$', 'Cédula de ciudadanía or NIT'),
    ],
  }),
  bank({
    id: 'bank_clp',
    country: 'CL',
    currency: 'CLP',
    rail: 'tef',
    fx_spread_percent: '0.6',
    requirements: [
      HOLDER_NAME,
      field('bank_code', '^[0-9]{3}$'),
      field('account_number', '^[0-9]{6,20}$'),
      field('tax_id', '^[0-9]{7,8}-[0-9Kk]$', 'RUT, e.g. 12345678-5'),
    ],
  }),
  bank({
    id: 'bank_pen',
    country: 'PE',
    currency: 'PEN',
    rail: 'cce',
    fx_spread_percent: '0.6',
    requirements: [HOLDER_NAME, field('cci', '^[0-9]{20}$', 'Código de Cuenta Interbancario (20 digits)')],
  }),
  bank({
    id: 'bank_ars',
    country: 'AR',
    currency: 'ARS',
    rail: 'coelsa',
    fx_spread_percent: '1.0',
    requirements: [
      HOLDER_NAME,
      field('cbu', '^[0-9]{22}$', 'CBU or CVU (22 digits)'),
      field('tax_id', '^[0-9]{11}$', 'CUIT/CUIL (11 digits)'),
    ],
  }),
  bank({
    id: 'bank_uyu',
    country: 'UY',
    currency: 'UYU',
    rail: 'spi_uy',
    fx_spread_percent: '0.7',
    requirements: [HOLDER_NAME, field('bank_code', '^[0-9]{3}$'), field('account_number', '^[0-9]{6,14}$')],
  }),
  // --- Europe
  ibanBank('sepa_eur', 'EU', 'EUR', 'sepa_instant', {
    coverage: EURO_AREA,
    arrival: { min: 'PT10S', max: 'P1D' },
    limits: { min: '1', max: '100000' },
    provider_fee: { percent: '0', flat: '0.2' },
    fx_spread_percent: '0.25',
    method: 'sepa_bank',
    requirements: [
      HOLDER_NAME,
      IBAN,
      { ...SWIFT_CODE, name: 'bic', required: false, description: 'BIC of the receiving bank (optional)' },
    ],
  }),
  bank({
    id: 'faster_gbp',
    country: 'GB',
    // Faster Payments also reaches banks in the Crown Dependencies, whose numbers
    // libphonenumber-js reports as GG/JE/IM.
    coverage: ['GB', 'GG', 'JE', 'IM'],
    currency: 'GBP',
    rail: 'faster_payments',
    arrival: { min: 'PT1M', max: 'PT2H' },
    limits: { min: '1', max: '50000' },
    provider_fee: { percent: '0', flat: '0.3' },
    fx_spread_percent: '0.25',
    requirements: [
      HOLDER_NAME,
      field('sort_code', '^[0-9]{6}$', 'Six-digit sort code, digits only'),
      field('account_number', '^[0-9]{8}$'),
    ],
  }),
  ibanBank('bank_chf', 'CH', 'CHF', 'sic', { fx_spread_percent: '0.3', arrival: { min: 'PT1H', max: 'P1D' } }),
  ibanBank('bank_sek', 'SE', 'SEK', 'bankgirot', { fx_spread_percent: '0.3' }),
  ibanBank('bank_nok', 'NO', 'NOK', 'nics', { fx_spread_percent: '0.3' }),
  ibanBank('bank_dkk', 'DK', 'DKK', 'straksclearing', { fx_spread_percent: '0.3', arrival: { min: 'PT1M', max: 'P1D' } }),
  ibanBank('bank_pln', 'PL', 'PLN', 'elixir', { fx_spread_percent: '0.35' }),
  ibanBank('bank_czk', 'CZ', 'CZK', 'certis', { fx_spread_percent: '0.35' }),
  ibanBank('bank_huf', 'HU', 'HUF', 'giro', { fx_spread_percent: '0.35' }),
  ibanBank('bank_ron', 'RO', 'RON', 'sent', { fx_spread_percent: '0.4' }),
  ibanBank('bank_try', 'TR', 'TRY', 'fast_tr', { fx_spread_percent: '0.8', arrival: { min: 'PT1M', max: 'P1D' } }),
  // --- Middle East and Africa
  ibanBank('bank_ils', 'IL', 'ILS', 'masav', { fx_spread_percent: '0.4' }),
  ibanBank('bank_aed', 'AE', 'AED', 'uaefts', { fx_spread_percent: '0.3', arrival: { min: 'PT1H', max: 'P1D' } }),
  ibanBank('bank_sar', 'SA', 'SAR', 'sarie', { fx_spread_percent: '0.3', arrival: { min: 'PT1H', max: 'P1D' } }),
  ibanBank('bank_egp', 'EG', 'EGP', 'ach_egypt', { fx_spread_percent: '1.0' }),
  bank({
    id: 'bank_mad',
    country: 'MA',
    currency: 'MAD',
    rail: 'srbm',
    fx_spread_percent: '0.8',
    requirements: [HOLDER_NAME, field('account_number', '^[0-9]{24}$', 'RIB (24 digits)')],
  }),
  bank({
    id: 'nip_ngn',
    country: 'NG',
    currency: 'NGN',
    rail: 'nip',
    arrival: { min: 'PT1M', max: 'PT1H' },
    fx_spread_percent: '1.0',
    limits: { min: '1', max: '10000' },
    requirements: [
      HOLDER_NAME,
      field('bank_code', '^[0-9]{3,6}$', 'CBN bank code'),
      field('account_number', '^[0-9]{10}$', 'NUBAN (10 digits)'),
    ],
  }),
  bank({
    id: 'bank_ghs',
    country: 'GH',
    currency: 'GHS',
    rail: 'ghipss',
    fx_spread_percent: '1.0',
    limits: { min: '1', max: '10000' },
    requirements: [HOLDER_NAME, field('bank_code', '^[0-9]{6}$', 'Bank sort code'), field('account_number', '^[0-9]{10,16}$')],
  }),
  bank({
    id: 'bank_kes',
    country: 'KE',
    currency: 'KES',
    rail: 'pesalink',
    arrival: { min: 'PT1M', max: 'PT1H' },
    fx_spread_percent: '0.8',
    limits: { min: '1', max: '10000' },
    requirements: [HOLDER_NAME, field('bank_code', '^[0-9]{2,3}$'), field('account_number', '^[0-9]{6,16}$')],
  }),
  bank({
    id: 'bank_zar',
    country: 'ZA',
    currency: 'ZAR',
    rail: 'rtc',
    fx_spread_percent: '0.5',
    requirements: [HOLDER_NAME, field('branch_code', '^[0-9]{6}$'), field('account_number', '^[0-9]{7,11}$')],
  }),
  // --- Asia-Pacific
  bank({
    id: 'chats_hkd',
    country: 'HK',
    currency: 'HKD',
    rail: 'chats',
    arrival: { min: 'PT30M', max: 'P1D' },
    limits: { min: '1', max: '50000' },
    fx_spread_percent: '0.3',
    requirements: [
      HOLDER_NAME,
      field('account_number', '^[0-9]{6,17}$'),
      SWIFT_CODE,
      { name: 'id_document_number', type: 'string', required: true, description: 'HKID or passport number' },
      RECIPIENT_KIND,
    ],
  }),
  bank({
    id: 'imps_inr',
    country: 'IN',
    currency: 'INR',
    rail: 'imps',
    arrival: { min: 'PT1M', max: 'PT2H' },
    limits: { min: '1', max: '5000' },
    fx_spread_percent: '0.5',
    requirements: [
      HOLDER_NAME,
      field('ifsc', '^[A-Z]{4}0[A-Z0-9]{6}$', 'IFSC of the branch'),
      field('account_number', '^[0-9]{9,18}$'),
    ],
  }),
  bank({
    id: 'pesonet_php',
    country: 'PH',
    currency: 'PHP',
    rail: 'pesonet',
    arrival: { min: 'PT2H', max: 'P1D' },
    fx_spread_percent: '0.5',
    requirements: [HOLDER_NAME, field('bank_code', '^[A-Z0-9]{4,11}$'), field('account_number', '^[0-9]{10,16}$')],
  }),
  bank({
    id: 'instapay_php',
    country: 'PH',
    currency: 'PHP',
    rail: 'instapay',
    arrival: { min: 'PT1M', max: 'PT30M' },
    // InstaPay caps a transfer at PHP 50,000.
    limits: { min: '1', max: '850' },
    fx_spread_percent: '0.5',
    requirements: [HOLDER_NAME, field('bank_code', '^[A-Z0-9]{4,11}$'), field('account_number', '^[0-9]{10,16}$')],
  }),
  bank({
    id: 'bank_jpy',
    country: 'JP',
    currency: 'JPY',
    rail: 'zengin',
    fx_spread_percent: '0.3',
    requirements: [
      HOLDER_NAME,
      field('bank_code', '^[0-9]{4}$'),
      field('branch_code', '^[0-9]{3}$'),
      field('account_number', '^[0-9]{7}$'),
    ],
  }),
  bank({
    id: 'bank_krw',
    country: 'KR',
    currency: 'KRW',
    rail: 'kftc',
    fx_spread_percent: '0.4',
    requirements: [HOLDER_NAME, field('bank_code', '^[0-9]{3}$'), field('account_number', '^[0-9]{10,14}$')],
  }),
  bank({
    id: 'bank_cny',
    country: 'CN',
    currency: 'CNY',
    rail: 'cnaps',
    fx_spread_percent: '0.5',
    limits: { min: '1', max: '7000' },
    requirements: [
      HOLDER_NAME,
      field('cnaps_code', '^[0-9]{12}$', 'CNAPS code of the branch'),
      field('account_number', '^[0-9]{12,19}$'),
    ],
  }),
  bank({
    id: 'bank_twd',
    country: 'TW',
    currency: 'TWD',
    rail: 'fisc',
    fx_spread_percent: '0.4',
    requirements: [HOLDER_NAME, field('bank_code', '^[0-9]{3,7}$'), field('account_number', '^[0-9]{10,16}$')],
  }),
  bank({
    id: 'bank_sgd',
    country: 'SG',
    currency: 'SGD',
    rail: 'fast',
    arrival: { min: 'PT1M', max: 'PT2H' },
    fx_spread_percent: '0.3',
    requirements: [HOLDER_NAME, SWIFT_CODE, field('account_number', '^[0-9]{6,17}$')],
  }),
  bank({
    id: 'bank_myr',
    country: 'MY',
    currency: 'MYR',
    rail: 'duitnow',
    arrival: { min: 'PT1M', max: 'PT2H' },
    fx_spread_percent: '0.4',
    requirements: [HOLDER_NAME, SWIFT_CODE, field('account_number', '^[0-9]{6,17}$')],
  }),
  bank({
    id: 'bank_thb',
    country: 'TH',
    currency: 'THB',
    rail: 'promptpay',
    arrival: { min: 'PT1M', max: 'PT2H' },
    fx_spread_percent: '0.4',
    requirements: [HOLDER_NAME, field('bank_code', '^[0-9]{3}$'), field('account_number', '^[0-9]{10,12}$')],
  }),
  bank({
    id: 'bank_idr',
    country: 'ID',
    currency: 'IDR',
    rail: 'bi_fast',
    arrival: { min: 'PT1M', max: 'PT2H' },
    fx_spread_percent: '0.5',
    requirements: [HOLDER_NAME, field('bank_code', '^[0-9]{3}$'), field('account_number', '^[0-9]{8,16}$')],
  }),
  bank({
    id: 'bank_vnd',
    country: 'VN',
    currency: 'VND',
    rail: 'napas',
    arrival: { min: 'PT1M', max: 'PT2H' },
    fx_spread_percent: '0.5',
    requirements: [HOLDER_NAME, field('bank_code', '^[0-9]{6}$', 'Bank BIN'), field('account_number', '^[0-9]{6,19}$')],
  }),
  ibanBank('bank_pkr', 'PK', 'PKR', 'raast', { fx_spread_percent: '0.8', arrival: { min: 'PT1M', max: 'P1D' } }),
  bank({
    id: 'bank_bdt',
    country: 'BD',
    currency: 'BDT',
    rail: 'beftn',
    fx_spread_percent: '0.8',
    limits: { min: '1', max: '10000' },
    requirements: [
      HOLDER_NAME,
      // Bangladeshi routing numbers are 9 digits but have no ABA checksum.
      field('routing_number', '^[0-9]{9}$', 'Bangladesh Bank routing number'),
      field('account_number', '^[0-9]{10,17}$'),
    ],
  }),
  bank({
    id: 'bank_aud',
    country: 'AU',
    currency: 'AUD',
    rail: 'npp',
    arrival: { min: 'PT1M', max: 'P1D' },
    fx_spread_percent: '0.3',
    requirements: [HOLDER_NAME, field('bsb', '^[0-9]{6}$', 'BSB, digits only'), field('account_number', '^[0-9]{6,10}$')],
  }),
  bank({
    id: 'bank_nzd',
    country: 'NZ',
    currency: 'NZD',
    rail: 'sbi',
    fx_spread_percent: '0.3',
    requirements: [HOLDER_NAME, field('account_number', '^[0-9]{15,16}$', 'Bank, branch, account and suffix, digits only')],
  }),
];

/** The sandbox catalog (spec "Channel"). Ids are unique; order is the listing order. */
export const CHANNELS: readonly ChannelDefinition[] = deepFreeze<ChannelDefinition[]>([
  {
    id: 'claim_link',
    country: null,
    currency: 'USD',
    rail: 'claim_link',
    // A claim link goes to a phone number or an e-mail; see channelAcceptsRecipientType.
    recipient_type: 'phone',
    // The recipient has 30 days to claim (spec "Limits": claim-link arrival maximum).
    arrival: { min: 'PT1M', max: 'P30D' },
    // Surface B's minimum disbursement is 1.00 USD.
    limits: { min: '1', max: '50000', currency: 'USDC' },
    provider_fee: { percent: '0', flat: '0.25' },
    service_fee: { percent: '1', flat: '0' },
    fx_spread_percent: '0',
    requirements: [
      { ...PHONE_FIELDS[0], required: false, description: 'Phone number in E.164; give number or address' },
      { ...EMAIL_FIELDS[0], required: false, description: 'E-mail address; give number or address' },
    ],
    method: 'claim_link',
    kyc_required: false,
  },
  {
    id: 'pagomovil_ves',
    country: 'VE',
    currency: 'VES',
    rail: 'pagomovil',
    recipient_type: 'pagomovil',
    arrival: { min: 'PT1M', max: 'PT1H' },
    limits: { min: '1', max: '2000', currency: 'USDC' },
    provider_fee: { percent: '0.5', flat: '0.1' },
    service_fee: SERVICE_FEE,
    fx_spread_percent: '1.5',
    requirements: PAGOMOVIL_FIELDS,
    method: 'pagomovil',
    kyc_required: true,
  },
  ...BANK_CHANNELS,
  {
    id: 'stellar_usdc',
    country: null,
    currency: 'USDC',
    rail: 'stellar',
    recipient_type: 'wallet',
    arrival: { min: 'PT5S', max: 'PT5M' },
    limits: { min: '1', max: '100000', currency: 'USDC' },
    provider_fee: { percent: '0', flat: '0.01' },
    service_fee: { percent: '0.2', flat: '0' },
    fx_spread_percent: '0',
    requirements: WALLET_FIELDS,
    method: 'stellar_wallet',
    kyc_required: false,
  },
  {
    id: 'service_user_usdc',
    country: null,
    currency: 'USDC',
    rail: 'internal',
    recipient_type: 'service_user',
    arrival: { min: 'PT1S', max: 'PT1M' },
    limits: { min: '0.01', max: '100000', currency: 'USDC' },
    provider_fee: { percent: '0', flat: '0' },
    service_fee: { percent: '0', flat: '0' },
    fx_spread_percent: '0',
    requirements: SERVICE_USER_FIELDS,
    method: 'service_wallet',
    kyc_required: false,
  },
]);

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const BY_ID = new Map(CHANNELS.map((c) => [c.id, c]));

/** The catalog entry with this id, or undefined. */
export function findChannel(id: string): ChannelDefinition | undefined {
  return BY_ID.get(id);
}

/**
 * Whether `channel` can pay a recipient of `type`: claim_link takes phone and email, every other
 * channel exactly its recipient_type.
 */
export function channelAcceptsRecipientType(channel: ChannelDefinition, type: RecipientType): boolean {
  if (channel.id === 'claim_link') return type === 'phone' || type === 'email';
  return type === channel.recipient_type;
}

/** Countries a channel reaches: its `coverage`, else its single `country`, else none. */
export function channelCountries(channel: ChannelDefinition): readonly string[] {
  return channel.coverage ?? (channel.country ? [channel.country] : []);
}

/** Whether `channel` pays out in `country` (ISO 3166-1 alpha-2; "EU" matches sepa_eur itself). */
export function channelCoversCountry(channel: ChannelDefinition, country: string): boolean {
  const c = country.toUpperCase();
  return channel.country === c || channelCountries(channel).includes(c);
}

/**
 * Spec "Channel".status. No live rail adapter ships (DESIGN.md: only the sandbox rail simulator),
 * so every channel is 'paused' in the live environment; in the sandbox a channel is 'paused' when
 * an operator paused it (`pausedIds`), else 'live'.
 */
export function channelStatus(
  channel: ChannelDefinition,
  environment: 'sandbox' | 'live',
  pausedIds: ReadonlySet<string>,
): 'live' | 'paused' {
  if (environment === 'live') return 'paused';
  return pausedIds.has(channel.id) ? 'paused' : 'live';
}

/** Exact sum of non-negative decimal strings ("0.3" + "0.35" = "0.65"). */
function addDecimals(...values: string[]): string {
  const parsed = values.map((v) => {
    const m = /^(\d+)(?:\.(\d+))?$/.exec(v);
    if (!m) throw new Error(`"${v}" is not a decimal number`);
    return { int: m[1], frac: m[2] ?? '' };
  });
  const scale = Math.max(0, ...parsed.map((p) => p.frac.length));
  const total = parsed.reduce((sum, p) => sum + BigInt(p.int + p.frac.padEnd(scale, '0')), 0n);
  if (scale === 0) return total.toString();
  const s = total.toString().padStart(scale + 1, '0');
  const int = s.slice(0, s.length - scale);
  const frac = s.slice(s.length - scale).replace(/0+$/, '');
  return frac ? `${int}.${frac}` : int;
}

/** Formats a USDC decimal string with 2 to 6 decimals ("0.25" -> "0.25", "0" -> "0.00"). */
function usdc(value: string): string {
  const [int, frac = ''] = value.split('.');
  return `${BigInt(int)}.${frac.replace(/0+$/, '').padEnd(2, '0')}`;
}

/**
 * The caller's fee as listed on the channel (spec "Channel".fee): percent = provider % + service %
 * + FX spread % (exact decimal string, e.g. "1.15"), flat = provider flat + service flat (USDC
 * Amount, e.g. "0.25"). pricing.ts `price` charges exactly these components on a quote.
 */
export function listedFee(channel: ChannelDefinition): { percent: string; flat: string; currency: 'USDC' } {
  return {
    percent: addDecimals(channel.provider_fee.percent, channel.service_fee.percent, channel.fx_spread_percent),
    flat: usdc(addDecimals(channel.provider_fee.flat, channel.service_fee.flat)),
    currency: 'USDC',
  };
}

/** A requirement as it goes on the wire (the internal `check` removed). */
export type WireRequirementField = Omit<RequirementField, 'check'>;

/** Spec "ChannelRequirements". */
export interface ChannelRequirements {
  channel: string;
  recipient_type: RecipientType;
  fields: WireRequirementField[];
  limits: { min: string; max: string; currency: 'USDC' };
}

/**
 * The spec's ChannelRequirements resource for `channel`: its id, recipient_type, fields (name,
 * type, required, pattern?, values?, description?) and limits (USDC Amounts as in the catalog).
 */
export function requirementsFor(channel: ChannelDefinition): ChannelRequirements {
  return {
    channel: channel.id,
    recipient_type: channel.recipient_type,
    fields: channel.requirements.map(({ check: _check, ...wire }) => ({
      ...wire,
      ...(wire.values ? { values: [...wire.values] } : {}),
    })),
    limits: { ...channel.limits },
  };
}
