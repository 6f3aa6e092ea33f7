/**
 * Channel types and the requirement-field building blocks the catalog is made of (spec
 * "ChannelRequirements"). Pure data, no I/O. The catalog is src/domain/channel-catalog.ts; the
 * functions over it are src/domain/channels.ts.
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

export const HOLDER_NAME: RequirementField = {
  name: 'holder_name',
  type: 'string',
  required: true,
  description: 'Full name of the account holder as the bank knows it',
};
export const RECIPIENT_KIND: RequirementField = {
  name: 'recipient_kind',
  type: 'enum',
  required: true,
  values: ['individual', 'business'],
};
export const IBAN: RequirementField = {
  name: 'iban',
  type: 'string',
  required: true,
  pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$',
  description: 'IBAN in electronic format (spaces are removed before validation)',
  check: 'iban',
};
export const SWIFT_PATTERN = '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$';
export const SWIFT_CODE: RequirementField = {
  name: 'swift_code',
  type: 'string',
  required: true,
  pattern: SWIFT_PATTERN,
  description: 'SWIFT/BIC of the receiving bank (8 or 11 characters)',
  check: 'bic',
};

/** A required string field with a pattern. */
export function field(name: string, pattern: string, description?: string): RequirementField {
  return { name, type: 'string', required: true, pattern, ...(description ? { description } : {}) };
}

/** E.164: a plus, a non-zero digit, at most 15 digits in all. */
export const E164_PATTERN = '^\\+[1-9][0-9]{1,14}$';

/** Recipient `phone` fields (spec "Recipient": phone.number, E.164). */
export const PHONE_FIELDS: RequirementField[] = [
  { name: 'number', type: 'phone', required: true, pattern: E164_PATTERN, description: 'Phone number in E.164' },
];
/** Recipient `email` fields (spec "Recipient": email.address). */
export const EMAIL_FIELDS: RequirementField[] = [{ name: 'address', type: 'email', required: true }];
/** Recipient `pagomovil` fields (spec "Recipient": pagomovil object). */
export const PAGOMOVIL_FIELDS: RequirementField[] = [
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
export const WALLET_FIELDS: RequirementField[] = [
  { name: 'network', type: 'enum', required: true, values: ['stellar'] },
  field('address', '^G[A-Z2-7]{55}$', 'Stellar account id (G...)'),
];
/** Recipient `service_user` fields (spec "Recipient": service_user.handle). */
export const SERVICE_USER_FIELDS: RequirementField[] = [
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

/** Freezes `value` and everything reachable from it (the catalog is immutable). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
