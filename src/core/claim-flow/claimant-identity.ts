/**
 * The claimant's identity at claim time (docs/screening.md "Identity at claim time"): what the claim
 * page collects for a channel with identity fields, validated (CURP and CPF by check digit), stored
 * once per payout with the national id and date of birth sealed (src/core/secrets.ts), and read back
 * as the payout's screening subject. The only writer of `claimant_identities`.
 */
import type { Db } from '../../db/schema';
import type { ChannelDefinition, NationalIdKind } from '../../domain/channel-fields';
import { findChannel } from '../../domain/channels';
import { validationError } from '../../domain/errors';
import { maskRecipientDetails } from '../../domain/recipients';
import { lazyPackage } from '../../lazy-package';
import { nameTokens, normalizeName } from '../../screening/normalize';
import type { Core } from '../context';
import type { ScreeningSubject } from '../screening/service';
import { keyringFor, openSecret, sealSecret } from '../secrets';

/** The claimant as a screening subject, and whether their name differs from the account holder's; null when none was collected. */
export interface ClaimantIdentity {
  subject: ScreeningSubject;
  /** Set when the claimant's name does not match the holder name of the account they gave. */
  nameMismatch: { claimantName: string; holderName: string } | null;
}

/** The identity fields as the claim page collects them, validated: `dateOfBirth` YYYY-MM-DD, `nationalId` without separators. */
export interface ClaimantIdentityInput {
  fullName: string;
  dateOfBirth: string;
  nationalIdKind: NationalIdKind;
  nationalId: string;
}

const curp = lazyPackage<{ validar(value: string): boolean | null }>('curp');
const cpf = lazyPackage<{ cpf: { isValid(value: string): boolean } }>('cpf-cnpj-validator');

const NATIONAL_ID: Record<NationalIdKind, { label: string; clean: (v: string) => string; valid: (v: string) => boolean }> = {
  curp: { label: 'CURP', clean: (v) => v.replace(/\s+/g, '').toUpperCase(), valid: (v) => curp().validar(v) === true },
  cpf: { label: 'CPF', clean: (v) => v.replace(/[\s.-]/g, ''), valid: (v) => /^[0-9]{11}$/.test(v) && cpf().cpf.isValid(v) },
};

/** Whether `channel` asks its claimants for identity (kycRequired with identity fields). */
export const asksIdentity = (channel: ChannelDefinition): boolean => channel.kycRequired && (channel.identityFields?.length ?? 0) > 0;

function isRealPastDate(s: string, now: Date): boolean {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s && s >= '1900-01-01' && d.getTime() < now.getTime();
}

/**
 * Validates the identity fields of `channel` in `form` (wire names full_name, date_of_birth,
 * national_id_kind, national_id). Throws ApiError 400 validation_error, param the field, with a
 * message for the recipient: a CURP or CPF whose check digits fail, a CURP whose birth date is not
 * `date_of_birth`.
 */
export function validateClaimantIdentity(channel: ChannelDefinition, form: Record<string, string>, now = new Date()): ClaimantIdentityInput {
  const kinds = (channel.identityFields?.find((f) => f.name === 'national_id_kind')?.values ?? []) as NationalIdKind[];
  const fullName = (form.full_name ?? '').trim().replace(/\s+/g, ' ');
  if (nameTokens(normalizeName(fullName)).length < 2 || fullName.length > 140) {
    throw validationError('full_name', 'Enter your full name (given name and surname) as on your identity document.');
  }
  const dateOfBirth = (form.date_of_birth ?? '').trim();
  if (!isRealPastDate(dateOfBirth, now)) throw validationError('date_of_birth', 'Enter your date of birth as YYYY-MM-DD.');
  const kind = ((form.national_id_kind ?? '').trim() || kinds[0]) as NationalIdKind;
  if (!kinds.includes(kind)) throw validationError('national_id_kind', `Choose one of: ${kinds.join(', ')}.`);
  const id = NATIONAL_ID[kind];
  const nationalId = id.clean(form.national_id ?? '');
  if (!nationalId) throw validationError('national_id', `Enter your ${id.label}.`);
  if (!id.valid(nationalId)) {
    throw validationError('national_id', `This ${id.label} is not valid: check it against your document (its check digit does not match).`);
  }
  if (kind === 'curp' && nationalId.slice(4, 10) !== dateOfBirth.slice(2, 4) + dateOfBirth.slice(5, 7) + dateOfBirth.slice(8, 10)) {
    throw validationError('national_id', 'This CURP is for another date of birth: check your CURP and your date of birth.');
  }
  return { fullName, dateOfBirth, nationalIdKind: kind, nationalId };
}

/**
 * Whether a claimant's name matches the account holder's (docs/screening.md "Identity at claim
 * time"): both normalised (src/screening/normalize.ts) to tokens without particles, the same
 * tokens in any order, or every token of the shorter name (two at least) in the longer one.
 */
export function namesMatch(claimantName: string, holderName: string): boolean {
  const a = nameTokens(normalizeName(claimantName));
  const b = nameTokens(normalizeName(holderName));
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length === 0) return false;
  if (short.length < 2 && long.length !== short.length) return false;
  const left = [...long];
  for (const t of short) {
    const at = left.indexOf(t);
    if (at < 0) return false;
    left.splice(at, 1);
  }
  return true;
}

const aad = (payoutId: string, column: 'national_id' | 'date_of_birth') => `claimant_identity:${payoutId}:${column}`;

/**
 * Stores the identity of payout `payout`'s claimant once (a later submission keeps the first), with
 * the name-match result against `holderName`; returns whether the names match.
 */
export async function recordClaimantIdentity(
  core: Core,
  payout: { id: string; businessId: string; environment: 'sandbox' | 'live' },
  channel: ChannelDefinition,
  identity: ClaimantIdentityInput,
  holderName: string,
): Promise<boolean> {
  const ring = keyringFor(core.config);
  const match = namesMatch(identity.fullName, holderName);
  await core.db
    .insertInto('claimant_identities')
    .values({
      payout_id: payout.id,
      business_id: payout.businessId,
      environment: payout.environment,
      channel: channel.id,
      full_name: identity.fullName,
      date_of_birth: sealSecret(ring, identity.dateOfBirth, aad(payout.id, 'date_of_birth')),
      national_id_kind: identity.nationalIdKind,
      national_id: sealSecret(ring, identity.nationalId, aad(payout.id, 'national_id')),
      holder_name: holderName.trim(),
      name_match: match,
    })
    .onConflict((oc) => oc.column('payout_id').doNothing())
    .execute();
  return match;
}

/** Whether an identity was collected for `payoutId` (the claim page's "we are checking your details"). */
export async function hasClaimantIdentity(db: Db, payoutId: string): Promise<boolean> {
  return (await db.selectFrom('claimant_identities').select('payout_id').where('payout_id', '=', payoutId).executeTakeFirst()) !== undefined;
}

/** The identity collected for `payoutId` masked for display (`••••07`), or null. */
export async function maskedClaimantIdentity(core: Core, payoutId: string): Promise<{ fullName: string; nationalIdKind: string; nationalId: string; dateOfBirth: string } | null> {
  const id = await claimantIdentity(core, payoutId);
  if (!id) return null;
  const ident = id.subject.identifiers?.[0];
  const masked = maskRecipientDetails('bank_account', { national_id: ident?.value ?? '', date_of_birth: id.subject.dateOfBirth ?? '' });
  return { fullName: id.subject.name, nationalIdKind: ident?.type ?? '', nationalId: String(masked.national_id), dateOfBirth: String(masked.date_of_birth) };
}

/** The identity collected when payout `payoutId` was claimed, decrypted; null when the claim collected none. Throws SecretUnreadableError for a key no longer configured. */
export async function claimantIdentity(core: Core, payoutId: string): Promise<ClaimantIdentity | null> {
  const row = await core.db.selectFrom('claimant_identities').selectAll().where('payout_id', '=', payoutId).executeTakeFirst();
  if (!row) return null;
  const ring = keyringFor(core.config);
  const country = findChannel(row.channel)?.country ?? undefined;
  return {
    subject: {
      name: row.full_name,
      kind: 'individual',
      dateOfBirth: openSecret(ring, row.date_of_birth, aad(payoutId, 'date_of_birth')),
      ...(country ? { country } : {}),
      identifiers: [{ type: row.national_id_kind, value: openSecret(ring, row.national_id, aad(payoutId, 'national_id')) }],
    },
    nameMismatch: row.name_match ? null : { claimantName: row.full_name, holderName: row.holder_name },
  };
}
