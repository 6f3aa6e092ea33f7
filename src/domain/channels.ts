/**
 * The channel catalog (spec "Channel", "ChannelRequirements") and what derives from it. Pure.
 * Limits and flat fees are USDC decimal strings, percentages decimal strings ("0.5" = 0.5 %), arrival
 * times ISO 8601 durations. `country` is null for borderless channels and "EU" for sepa_eur (use
 * {@link channelCoversCountry}; docs/catalog.md).
 */

import { CHANNELS } from './channel-catalog';
import type { ChannelDefinition, RecipientType, RequirementField } from './channel-fields';
import { parseAmount, USDC } from './money';

export {
  type ChannelDefinition,
  E164_PATTERN,
  type FieldCheck,
  RECIPIENT_TYPE_FIELDS,
  RECIPIENT_TYPES,
  type RecipientType,
  type RequirementField,
} from './channel-fields';
export { CHANNELS } from './channel-catalog';

const BY_ID = new Map(CHANNELS.map((c) => [c.id, c]));

export function findChannel(id: string): ChannelDefinition | undefined {
  return BY_ID.get(id);
}

/** claim_link takes phone and email; every other channel exactly its recipientType. */
export function channelAcceptsRecipientType(channel: ChannelDefinition, type: RecipientType): boolean {
  if (channel.id === 'claim_link') return type === 'phone' || type === 'email';
  return type === channel.recipientType;
}

export function channelCountries(channel: ChannelDefinition): readonly string[] {
  return channel.coverage ?? (channel.country ? [channel.country] : []);
}

/** ISO 3166-1 alpha-2; "EU" matches sepa_eur itself. */
export function channelCoversCountry(channel: ChannelDefinition, country: string): boolean {
  const c = country.toUpperCase();
  return channel.country === c || channelCountries(channel).includes(c);
}

/** Spec "Channel".status (docs/rails.md "Channel status"): live only when not paused and (live mode) its rail works. */
export function channelStatus(
  channel: ChannelDefinition,
  environment: 'sandbox' | 'live',
  pausedIds: ReadonlySet<string>,
  liveRailWorking: (rail: string) => boolean = () => false,
): 'live' | 'paused' {
  if (pausedIds.has(channel.id)) return 'paused';
  if (environment === 'live') return liveRailWorking(channel.rail) ? 'live' : 'paused';
  return 'live';
}

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

function usdc(value: string): string {
  const [int, frac = ''] = value.split('.');
  return `${BigInt(int)}.${frac.replace(/0+$/, '').padEnd(2, '0')}`;
}

/** Spec "Channel".fee: percent = provider + service + FX spread %, flat = provider + service flat (USDC). */
export function listedFee(channel: ChannelDefinition): { percent: string; flat: string; currency: 'USDC' } {
  return {
    percent: addDecimals(channel.providerFee.percent, channel.serviceFee.percent, channel.fxSpreadPercent),
    flat: usdc(addDecimals(channel.providerFee.flat, channel.serviceFee.flat)),
    currency: 'USDC',
  };
}

/** A requirement field as callers see it: {@link RequirementField} without the internal `check`. */
export type PublicRequirementField = Omit<RequirementField, 'check'>;

/** Channel limits in micro-USDC (spec "Limits"). */
export interface ChannelLimits {
  min: bigint;
  max: bigint;
  currency: 'USDC';
}

/** Spec "ChannelRequirements" as a domain object. */
export interface ChannelRequirements {
  channel: string;
  recipientType: RecipientType;
  fields: PublicRequirementField[];
  limits: ChannelLimits;
  /** Extension: what a claimant gives on the claim page of a kycRequired channel (docs/screening.md "Identity at claim time"). */
  identityFields?: PublicRequirementField[];
}

/** Spec "Channel" plus extension `countries` (ISO 3166-1 alpha-2), with its status for one caller. */
export interface ChannelListing {
  id: string;
  status: 'live' | 'paused';
  /** Extension: why the channel is paused (a sentence), null while live. */
  statusReason: string | null;
  country: string | null;
  countries: string[];
  currency: string;
  rail: string;
  recipientType: RecipientType;
  /** ISO 8601 durations. */
  arrival: { min: string; max: string };
  limits: ChannelLimits;
  /** {@link listedFee}: decimal strings. */
  fee: { percent: string; flat: string; currency: 'USDC' };
}

/** `channel.limits` in micro-USDC. */
export function channelLimits(channel: ChannelDefinition): ChannelLimits {
  const micro = (v: string) => parseAmount(v, USDC, { allowZero: true });
  return { min: micro(channel.limits.min), max: micro(channel.limits.max), currency: channel.limits.currency };
}

/** Spec "ChannelRequirements" for `channel`. */
export function requirementsFor(channel: ChannelDefinition): ChannelRequirements {
  const listed = (fields: readonly RequirementField[]) =>
    fields.map(({ check: _check, ...f }) => ({ ...f, ...(f.values ? { values: [...f.values] } : {}) }));
  return {
    channel: channel.id,
    recipientType: channel.recipientType,
    fields: listed(channel.requirements),
    limits: channelLimits(channel),
    ...(channel.identityFields ? { identityFields: listed(channel.identityFields) } : {}),
  };
}
