/** Surface A's channels (spec "Channel", "ChannelRequirements"): limits as USDC decimal strings. */
import type { ChannelListing, ChannelRequirements, PublicRequirementField, RecipientType } from '../../domain/channels';
import { formatAmount } from '../../domain/money';

/** Spec "Limits" on the wire: USDC decimal strings. */
export interface WireChannelLimits {
  min: string;
  max: string;
  currency: 'USDC';
}

/** Spec "Channel" (plus the extension `countries`). */
export interface WireChannel {
  id: string;
  status: 'live' | 'paused';
  status_reason: string | null;
  country: string | null;
  countries: string[];
  currency: string;
  rail: string;
  recipient_type: RecipientType;
  arrival: { min: string; max: string };
  limits: WireChannelLimits;
  fee: { percent: string; flat: string; currency: string };
}

/** Spec "ChannelRequirements". */
export interface WireChannelRequirements {
  channel: string;
  recipient_type: RecipientType;
  fields: PublicRequirementField[];
  limits: WireChannelLimits;
  /** Extension: the claim page's identity fields (docs/screening.md "Identity at claim time"). */
  identity_fields?: PublicRequirementField[];
}

function renderLimits(l: ChannelListing['limits']): WireChannelLimits {
  return { min: formatAmount(l.min, l.currency), max: formatAmount(l.max, l.currency), currency: l.currency };
}

/** One entry of `GET /channels`. */
export function renderChannel(c: ChannelListing): WireChannel {
  return {
    id: c.id,
    status: c.status,
    status_reason: c.statusReason,
    country: c.country,
    countries: [...c.countries],
    currency: c.currency,
    rail: c.rail,
    recipient_type: c.recipientType,
    arrival: { min: c.arrival.min, max: c.arrival.max },
    limits: renderLimits(c.limits),
    fee: { ...c.fee },
  };
}

/** `GET /channels/{channel}/requirements`. */
export function renderChannelRequirements(r: ChannelRequirements): WireChannelRequirements {
  return {
    channel: r.channel,
    recipient_type: r.recipientType,
    fields: r.fields,
    limits: renderLimits(r.limits),
    ...(r.identityFields ? { identity_fields: r.identityFields } : {}),
  };
}
