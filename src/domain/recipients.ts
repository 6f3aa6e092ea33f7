/**
 * Recipients: validation, readiness, masking, receivability (spec "Recipient", "InlineRecipient",
 * "Receivability"; checks in docs/catalog.md). Pure. Invalid value: 400 validation_error naming it.
 */
import { createRequire } from 'node:module';
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { z } from 'zod';
import {
  CHANNELS,
  type ChannelDefinition,
  channelAcceptsRecipientType,
  channelCoversCountry,
  E164_PATTERN,
  RECIPIENT_TYPE_FIELDS,
  RECIPIENT_TYPES,
  type RecipientType,
  type RequirementField,
} from './channels';
import { ApiError, validationError } from './errors';

// Loaded at the first phone number (docs/operations.md "Idle cost"; src/lazy-package.ts outside the domain).
const requirePackage = createRequire(import.meta.url);
let libphonenumber: typeof import('libphonenumber-js/max') | undefined;
const phoneNumbers = () => (libphonenumber ??= requirePackage('libphonenumber-js/max') as typeof import('libphonenumber-js/max'));

const regexCache = new Map<string, RegExp>();
function regex(pattern: string): RegExp {
  let re = regexCache.get(pattern);
  if (!re) {
    re = new RegExp(pattern);
    regexCache.set(pattern, re);
  }
  return re;
}

const emailSchema = z.email();

function isIsoDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return d <= days;
}

/** CLABE: 18 digits; the 18th is the check digit of weights 3,7,1 (each product mod 10). */
export function isValidClabe(v: string): boolean {
  if (!/^[0-9]{18}$/.test(v)) return false;
  const weights = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(v[i]) * weights[i % 3]) % 10;
  return (10 - (sum % 10)) % 10 === Number(v[17]);
}

/** ABA routing number: 9 digits with 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10). */
export function isValidAbaRouting(v: string): boolean {
  if (!/^[0-9]{9}$/.test(v)) return false;
  const d = [...v].map(Number);
  const sum = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8]);
  return sum % 10 === 0;
}

/** Whether `v` is a valid phone number written in strict E.164 (`+` and digits only). */
export function isE164(v: string): boolean {
  return regex(E164_PATTERN).test(v) && phoneNumbers().isValidPhoneNumber(v);
}

/** ISO 3166-1 alpha-2 country of an E.164 number (libphonenumber-js), or null if invalid/unknown. */
export function phoneCountry(number: string): string | null {
  if (!isE164(number)) return null;
  return phoneNumbers().parsePhoneNumberFromString(number)?.country ?? null;
}

type Checked = { ok: true; value: string } | { ok: false; message: string };

function checkValue(f: RequirementField, raw: unknown, channel: ChannelDefinition | undefined): Checked {
  if (typeof raw !== 'string') return { ok: false, message: `${f.name} must be a string` };
  let v = raw.trim();
  if (f.check === 'iban') v = electronicFormatIBAN(v) ?? v;
  if (f.check === 'bic') v = v.replace(/\s+/g, '').toUpperCase();

  switch (f.type) {
    case 'enum':
      if (!f.values?.includes(v)) return { ok: false, message: `${f.name} must be one of: ${(f.values ?? []).join(', ')}` };
      break;
    case 'date':
      if (!isIsoDate(v)) return { ok: false, message: `${f.name} must be a date in the form YYYY-MM-DD` };
      break;
    case 'email':
      if (v.length > 254 || !emailSchema.safeParse(v).success) {
        return { ok: false, message: `${f.name} must be a valid e-mail address` };
      }
      break;
    case 'phone':
      if (!isE164(v)) {
        return { ok: false, message: `${f.name} must be a valid phone number in E.164 format, e.g. +14155552671` };
      }
      break;
    case 'string':
      break;
  }
  if (f.pattern && !regex(f.pattern).test(v)) {
    return { ok: false, message: `${f.name} must match ${f.pattern}` };
  }
  switch (f.check) {
    case 'clabe':
      if (!isValidClabe(v)) return { ok: false, message: `${f.name} is not a valid CLABE (check digit mismatch)` };
      break;
    case 'aba_routing':
      if (!isValidAbaRouting(v)) return { ok: false, message: `${f.name} is not a valid ABA routing number (checksum)` };
      break;
    case 'bic':
      if (!isValidBIC(v)) return { ok: false, message: `${f.name} is not a valid SWIFT/BIC code` };
      break;
    case 'iban': {
      if (!isValidIBAN(v)) return { ok: false, message: `${f.name} is not a valid IBAN (length or checksum)` };
      const country = v.slice(0, 2);
      if (channel && !channelCoversCountry(channel, country)) {
        return { ok: false, message: `${f.name} is a ${country} IBAN; channel ${channel.id} does not pay to ${country}` };
      }
      break;
    }
    case undefined:
      break;
  }
  return { ok: true, value: v };
}

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

interface Evaluation {
  details: Record<string, unknown>;
  missing: string[];
  error?: { field: string; message: string };
}

function evaluate(
  fields: readonly RequirementField[],
  input: Record<string, unknown>,
  channel: ChannelDefinition | undefined,
  defaults: Record<string, unknown> = {},
): Evaluation {
  const details: Record<string, unknown> = { ...input };
  const missing: string[] = [];
  for (const f of fields) {
    const raw = isBlank(input[f.name]) ? defaults[f.name] : input[f.name];
    if (isBlank(raw)) {
      delete details[f.name];
      if (f.required) missing.push(f.name);
      continue;
    }
    const r = checkValue(f, raw, channel);
    if (!r.ok) return { details, missing, error: { field: f.name, message: r.message } };
    details[f.name] = r.value;
  }
  return { details, missing };
}

/** Spec "Recipient" country, currency and kind (kind fills a bank channel's `recipient_kind`). */
export interface RecipientContext {
  country?: string;
  currency?: string;
  kind?: 'individual' | 'business';
}

/** Readiness and normalised details (store `details` unmasked). */
export interface RecipientValidation {
  status: 'ready' | 'needs_fields';
  missingFields: string[];
  channels: string[];
  details: Record<string, unknown>;
}

function isRecipientType(t: unknown): t is RecipientType {
  return typeof t === 'string' && (RECIPIENT_TYPES as readonly string[]).includes(t);
}

/**
 * Validates a saved recipient's type object and computes readiness; bank_account picks the
 * candidate channel with the fewest missing fields. Throws 400 validation_error (param
 * `<type>.<field>` or `type`), 422 recipient_not_ready (param 'country') when no corridor fits.
 */
export function validateRecipientDetails(
  type: RecipientType,
  details: Record<string, unknown> | null | undefined,
  ctx: RecipientContext = {},
): RecipientValidation {
  if (!isRecipientType(type)) throw validationError('type', `type must be one of: ${RECIPIENT_TYPES.join(', ')}`);
  if (details !== undefined && details !== null && (typeof details !== 'object' || Array.isArray(details))) {
    throw validationError(type, `${type} must be an object`);
  }
  const input = details ?? {};

  if (type !== 'bank_account') {
    const ev = evaluate(RECIPIENT_TYPE_FIELDS[type], input, undefined);
    if (ev.error) throw validationError(`${type}.${ev.error.field}`, ev.error.message);
    const ready = ev.missing.length === 0;
    return {
      status: ready ? 'ready' : 'needs_fields',
      missingFields: ev.missing,
      channels: ready ? CHANNELS.filter((c) => channelAcceptsRecipientType(c, type)).map((c) => c.id) : [],
      details: ev.details,
    };
  }

  let country = ctx.country?.trim().toUpperCase() || undefined;
  const currency = ctx.currency?.trim().toUpperCase() || undefined;
  if (!country && !currency && typeof input.iban === 'string') {
    const iban = electronicFormatIBAN(input.iban.trim());
    if (iban && /^[A-Z]{2}/.test(iban)) country = iban.slice(0, 2);
  }
  if (!country && !currency) {
    throw new ApiError(
      422,
      'recipient_not_ready',
      'A bank_account recipient needs a country or a currency (or an IBAN) to choose its corridor',
      'country',
    );
  }
  const candidates = CHANNELS.filter(
    (c) =>
      c.recipientType === 'bank_account' &&
      (!country || channelCoversCountry(c, country)) &&
      (!currency || c.currency === currency),
  );
  if (candidates.length === 0) {
    const corridor = [country && `country ${country}`, currency && `currency ${currency}`].filter(Boolean).join(' and ');
    throw new ApiError(422, 'recipient_not_ready', `No bank_account channel pays to ${corridor}`, 'country');
  }
  const defaults = ctx.kind ? { recipient_kind: ctx.kind } : {};
  const evaluated = candidates.map((channel) => ({ channel, ev: evaluate(channel.requirements, input, channel, defaults) }));
  const byMissing = (a: { ev: Evaluation }, b: { ev: Evaluation }) => a.ev.missing.length - b.ev.missing.length;
  const viable = evaluated.filter((e) => !e.ev.error).sort(byMissing);
  if (viable.length === 0) {
    const { ev } = [...evaluated].sort(byMissing)[0];
    const error = ev.error as { field: string; message: string };
    throw validationError(`bank_account.${error.field}`, error.message);
  }
  const best = viable[0];
  return {
    status: best.ev.missing.length === 0 ? 'ready' : 'needs_fields',
    missingFields: best.ev.missing,
    channels: viable.filter((e) => e.ev.missing.length === 0).map((e) => e.channel.id),
    details: best.ev.details,
  };
}

/** Spec "InlineRecipient"; bank fields may be flat or inside `bank_account`. */
export interface InlineRecipient {
  type: RecipientType;
  number?: string;
  address?: string;
  network?: string;
  phone_number?: string;
  bank_code?: string;
  national_id?: string;
  holder_name?: string;
  date_of_birth?: string;
  handle?: string;
  bank_account?: Record<string, unknown>;
  [field: string]: unknown;
}

/**
 * Validates an inline recipient for `channel`; returns its normalised `{ type, details }`. Throws 400
 * validation_error (param `recipient.<field>`), 422 recipient_not_ready when fields are missing.
 */
export function validateInlineRecipient(
  r: InlineRecipient,
  channel: ChannelDefinition,
): { type: RecipientType; details: Record<string, unknown> } {
  if (!r || typeof r !== 'object' || Array.isArray(r)) throw validationError('recipient', 'recipient must be an object');
  const type = r.type;
  if (!isRecipientType(type)) {
    throw validationError('recipient.type', `recipient.type must be one of: ${RECIPIENT_TYPES.join(', ')}`);
  }
  if (!channelAcceptsRecipientType(channel, type)) {
    const accepted = channel.id === 'claim_link' ? 'phone or email' : channel.recipientType;
    throw validationError('recipient.type', `Channel ${channel.id} pays ${accepted} recipients, not ${type}`);
  }
  const fields = type === 'phone' || type === 'email' ? RECIPIENT_TYPE_FIELDS[type] : channel.requirements;
  const nested = r.bank_account && typeof r.bank_account === 'object' ? r.bank_account : {};
  const input: Record<string, unknown> = {};
  for (const f of fields) {
    let v: unknown = r[f.name];
    if (isBlank(v) && type === 'bank_account') v = nested[f.name];
    if (isBlank(v) && type === 'service_user' && f.name === 'handle') v = r.address;
    if (v !== undefined) input[f.name] = v;
  }
  const ev = evaluate(fields, input, channel);
  if (ev.error) throw validationError(`recipient.${ev.error.field}`, ev.error.message);
  if (ev.missing.length > 0) {
    throw new ApiError(
      422,
      'recipient_not_ready',
      `recipient is missing required fields for channel ${channel.id}: ${ev.missing.join(', ')}`,
      'recipient',
      { missing_fields: ev.missing },
    );
  }
  return { type, details: ev.details };
}

const ACCOUNT_FIELDS = new Set(['account_number', 'clabe', 'iban', 'pix_key', 'cci', 'cbu']);
const IDENTITY_FIELDS = new Set(['national_id', 'tax_id', 'id_document_number', 'date_of_birth']);

function maskKeep(v: string, keep: number): string {
  return v.length <= keep ? '••••' : `••••${v.slice(-keep)}`;
}

/**
 * A masked copy of a recipient's type object (spec "Recipient"): account fields `••••1234`, identity
 * fields `••••78`; contact phone/e-mail and wallet addresses stay whole. Idempotent.
 */
export function maskRecipientDetails(type: RecipientType, details: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(details ?? {})) {
    if (typeof v !== 'string') out[k] = v;
    else if (ACCOUNT_FIELDS.has(k) || (type === 'pagomovil' && k === 'phone_number')) out[k] = maskKeep(v, 4);
    else if (IDENTITY_FIELDS.has(k)) out[k] = maskKeep(v, 2);
    else out[k] = v;
  }
  return out;
}

/** Spec "Receivability": claim cash-out methods; `kycRequiredFor` is the subset that asks for KYC. */
export interface Receivability {
  receivable: boolean;
  country: string | null;
  methods: string[];
  kycRequiredFor: string[];
}

const SERVICE_WALLET = 'service_wallet';

/**
 * GET /recipients/check (spec "Receivability"): the claim cash-out methods for a phone (local
 * channels, then service_wallet) or e-mail (service_wallet only). Throws 400 validation_error
 * (param 'number' / 'address' / 'type').
 */
export function receivability(input: { type: 'phone' | 'email'; number?: string; address?: string }): Receivability {
  if (input.type === 'email') {
    const address = typeof input.address === 'string' ? input.address.trim() : '';
    if (!address || address.length > 254 || !emailSchema.safeParse(address).success) {
      throw validationError('address', 'address must be a valid e-mail address');
    }
    return { receivable: true, country: null, methods: [SERVICE_WALLET], kycRequiredFor: [] };
  }
  if (input.type !== 'phone') throw validationError('type', 'type must be phone or email');
  const number = typeof input.number === 'string' ? input.number.trim() : '';
  if (!number || !isE164(number)) {
    throw validationError('number', 'number must be a valid phone number in E.164 format, e.g. +14155552671');
  }
  const country = phoneNumbers().parsePhoneNumberFromString(number)?.country ?? null;
  const local = country
    ? CHANNELS.filter(
        (c) => (c.recipientType === 'bank_account' || c.recipientType === 'pagomovil') && channelCoversCountry(c, country),
      )
    : [];
  const wallet = CHANNELS.filter((c) => c.method === SERVICE_WALLET);
  const methods: string[] = [];
  const kyc: string[] = [];
  for (const c of [...local, ...wallet]) {
    if (!methods.includes(c.method)) methods.push(c.method);
    if (c.kycRequired && !kyc.includes(c.method)) kyc.push(c.method);
  }
  if (!methods.includes(SERVICE_WALLET)) methods.push(SERVICE_WALLET);
  return { receivable: local.length > 0, country, methods, kycRequiredFor: kyc };
}
