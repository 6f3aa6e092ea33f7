/**
 * The sandbox channel catalog (spec "Channel"): one entry per channel, built from the requirement
 * fields of src/domain/channel-fields.ts. Pure data, no I/O. Units as in src/domain/channels.ts.
 */
import {
  type ChannelDefinition,
  deepFreeze,
  EMAIL_FIELDS,
  field,
  HOLDER_NAME,
  IBAN,
  PAGOMOVIL_FIELDS,
  PHONE_FIELDS,
  RECIPIENT_KIND,
  type RequirementField,
  SERVICE_USER_FIELDS,
  SWIFT_CODE,
  WALLET_FIELDS,
} from './channel-fields';

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
  ibanBank('sepa_eur', 'EU', 'EUR', 'sepa_credit_transfer', {
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
