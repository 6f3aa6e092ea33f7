/** Channel types and requirement-field building blocks (spec "ChannelRequirements"). Pure data. */

export type RecipientType = 'bank_account' | 'pagomovil' | 'wallet' | 'phone' | 'email' | 'service_user';

export const RECIPIENT_TYPES: readonly RecipientType[] = Object.freeze([
  'bank_account',
  'pagomovil',
  'wallet',
  'phone',
  'email',
  'service_user',
]);

/** Semantic check beyond `pattern` (src/domain/recipients.ts); internal, not on the wire. */
export type FieldCheck = 'clabe' | 'iban' | 'bic' | 'aba_routing';

/** Spec "ChannelRequirements" field: 'date' YYYY-MM-DD, 'phone' E.164; `pattern` anchored, on the trimmed value. */
export interface RequirementField {
  name: string;
  type: 'string' | 'enum' | 'date' | 'email' | 'phone';
  required: boolean;
  pattern?: string;
  values?: string[];
  description?: string;
  check?: FieldCheck;
}

/** A catalog entry: fees and limits USDC decimal strings; `coverage` only for multi-country channels. */
export interface ChannelDefinition {
  id: string;
  country: string | null;
  coverage?: readonly string[];
  currency: string;
  rail: string;
  recipientType: RecipientType;
  arrival: { min: string; max: string };
  limits: { min: string; max: string; currency: 'USDC' };
  providerFee: { percent: string; flat: string };
  serviceFee: { percent: string; flat: string };
  fxSpreadPercent: string;
  requirements: RequirementField[];
  method: string;
  kycRequired: boolean;
  /** Identity fields a claimant gives on the claim page (docs/screening.md "Identity at claim time"); not recipient fields. */
  identityFields?: RequirementField[];
}

/** The national identifiers the claim page validates by check digit: CURP (Mexico), CPF (Brazil). */
export type NationalIdKind = 'curp' | 'cpf';

/** National-id patterns (anchored, on the trimmed value); the check digits are validated beyond them. */
export const NATIONAL_ID_PATTERNS: Readonly<Record<NationalIdKind, string>> = Object.freeze({
  curp: '^[A-Z][AEIOUX][A-Z]{2}[0-9]{6}[HMX][A-Z]{5}[A-Z0-9][0-9]$',
  cpf: '^[0-9]{3}\\.?[0-9]{3}\\.?[0-9]{3}-?[0-9]{2}$',
});

/** The identity fields of a kycRequired channel whose claimants give a national id of `kind`. */
export function identityFields(kind: NationalIdKind, idDescription: string): RequirementField[] {
  return [
    { name: 'full_name', type: 'string', required: true, description: 'Your full name as on your identity document' },
    { name: 'date_of_birth', type: 'date', required: true, description: 'Date of birth, YYYY-MM-DD' },
    { name: 'national_id_kind', type: 'enum', required: true, values: [kind], description: 'National identifier' },
    { name: 'national_id', type: 'string', required: true, pattern: NATIONAL_ID_PATTERNS[kind], description: idDescription },
  ];
}

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

export function field(name: string, pattern: string, description?: string): RequirementField {
  return { name, type: 'string', required: true, pattern, ...(description ? { description } : {}) };
}

export const E164_PATTERN = '^\\+[1-9][0-9]{1,14}$';

export const PHONE_FIELDS: RequirementField[] = [
  { name: 'number', type: 'phone', required: true, pattern: E164_PATTERN, description: 'Phone number in E.164' },
];
export const EMAIL_FIELDS: RequirementField[] = [{ name: 'address', type: 'email', required: true }];
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
export const WALLET_FIELDS: RequirementField[] = [
  { name: 'network', type: 'enum', required: true, values: ['stellar'] },
  field('address', '^G[A-Z2-7]{55}$', 'Stellar account id (G...)'),
];
export const SERVICE_USER_FIELDS: RequirementField[] = [
  field('handle', '^@?[A-Za-z0-9_.]{3,32}$', 'Handle of a user of the service, e.g. @maria'),
];

/** Spec "Recipient" fixed fields per type; bank_account's come from its corridor's channel. */
export const RECIPIENT_TYPE_FIELDS: Readonly<Record<Exclude<RecipientType, 'bank_account'>, readonly RequirementField[]>> =
  deepFreeze({
    pagomovil: PAGOMOVIL_FIELDS,
    wallet: WALLET_FIELDS,
    phone: PHONE_FIELDS,
    email: EMAIL_FIELDS,
    service_user: SERVICE_USER_FIELDS,
  });

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
