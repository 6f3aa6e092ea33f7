/**
 * The channel catalog as the caller sees it (spec "Channel", "ChannelRequirements"; Surface A
 * `GET /channels`, `GET /channels/{channel}/requirements`). Wraps the pure catalog of
 * src/domain/channels.ts with the caller's environment and the operator's paused channels
 * (config PAUSED_CHANNELS). No I/O: the catalog is code, not rows.
 *
 * Amounts (limits, flat fee) are canonical USDC Amounts ("1.00", "50000.00", "0.25").
 */
import { pausedChannels } from './channel-pauses';
import { CLAIM_LINK, claimLinkLiveProblem } from './claim-routes';
import { liveRailWorking } from './rails/rail-adapters';
import { missingLiveRate, rateUnavailable } from './rates/pricing-rate';
import {
  CHANNELS,
  type ChannelDefinition,
  type ChannelRequirements,
  channelAcceptsRecipientType,
  channelCountries,
  channelCoversCountry,
  channelStatus,
  findChannel,
  listedFee,
  type RecipientType,
  requirementsFor,
} from '../domain/channels';
import { ApiError, notFound, validationError } from '../domain/errors';
import { formatAmount, parseAmount, USDC } from '../domain/money';
import type { Caller, Core } from './context';

/**
 * Spec "Channel" plus the documented extension `countries` (the ISO 3166-1 alpha-2 countries the
 * channel pays to: one for single-country channels, every euro-area country for sepa_eur, none
 * for borderless channels such as claim_link). Durations ISO 8601; limits and fee.flat USDC Amounts;
 * fee.percent a decimal string ("1.15" = 1.15 %).
 */
export interface ChannelListing {
  id: string;
  status: 'live' | 'paused';
  country: string | null;
  countries: string[];
  currency: string;
  rail: string;
  recipient_type: RecipientType;
  arrival: { min: string; max: string };
  limits: { min: string; max: string; currency: 'USDC' };
  fee: { percent: string; flat: string; currency: string };
}

/**
 * Optional filters of `GET /channels` (documented extension). `country`: channels whose
 * {@link ChannelListing.countries} include it ("EU" matches sepa_eur); borderless channels never
 * match a country. `currency`: the payout currency. `recipient_type`: channels that can pay that
 * type (claim_link matches phone and email). Codes are case-insensitive.
 */
export interface ChannelFilters {
  country?: string;
  currency?: string;
  recipient_type?: RecipientType;
}

/** A USDC catalog amount ("1", "0.5") in canonical wire form ("1.00", "0.50"). */
function usdcAmount(value: string): string {
  return formatAmount(parseAmount(value, USDC, { allowZero: true }), USDC);
}

/** Channel limits as wire Amounts (spec "Channel".limits, currency USDC). */
function wireLimits(channel: ChannelDefinition): ChannelListing['limits'] {
  return { min: usdcAmount(channel.limits.min), max: usdcAmount(channel.limits.max), currency: channel.limits.currency };
}

/**
 * The status of `channel` for `caller` (spec "Channel".status; docs/rails.md "Channel status"):
 * paused when the operator paused it (PAUSED_CHANNELS, or at runtime: src/core/channel-pauses.ts),
 * and in live unless its rail's connection works and a usable live rate exists for its currency
 * (docs/rates.md "Stale or failing sources").
 */
export function statusFor(core: Core, caller: Caller, channel: ChannelDefinition): 'live' | 'paused' {
  const status = railStatusFor(core, caller, channel);
  if (status === 'live' && missingLiveRate(core, caller, channel)) return 'paused';
  return status;
}

/**
 * {@link statusFor} without the live rate: paused by the operator or for want of a working rail
 * connection. Live `claim_link` has no rail of its own: it is live while a claim can be notified
 * and paid out (src/core/claim-routes.ts claimLinkLiveProblem).
 */
export function railStatusFor(core: Core, caller: Caller, channel: ChannelDefinition): 'live' | 'paused' {
  const working = (rail: string) => (channel.id === CLAIM_LINK ? claimLinkLiveProblem(core, channel.currency) === null : liveRailWorking(core, rail));
  return channelStatus(channel, caller.environment, pausedChannels(core), working);
}

/** Why `channel` is paused for a live caller (a sentence), for channel_unavailable messages. */
export function livePauseReason(core: Core, channel: ChannelDefinition): string {
  if (pausedChannels(core).has(channel.id)) return 'the operator paused it';
  if (channel.id === CLAIM_LINK) return claimLinkLiveProblem(core, channel.currency) ?? 'it is paused';
  return 'its rail has no working live connection';
}

/** One catalog entry as the spec's Channel seen by `caller` (internal fields such as requirement checks left out). */
export function channelListing(core: Core, caller: Caller, channel: ChannelDefinition): ChannelListing {
  return {
    id: channel.id,
    status: statusFor(core, caller, channel),
    country: channel.country,
    countries: [...channelCountries(channel)],
    currency: channel.currency,
    rail: channel.rail,
    recipient_type: channel.recipient_type,
    arrival: { min: channel.arrival.min, max: channel.arrival.max },
    limits: wireLimits(channel),
    fee: listedFee(channel),
  };
}

/** `GET /channels`: every catalog channel matching `filters`, in catalog order (spec "Channel"). */
export function listChannels(core: Core, caller: Caller, filters: ChannelFilters = {}): ChannelListing[] {
  const currency = filters.currency?.toUpperCase();
  return CHANNELS.filter(
    (c) =>
      (!filters.country || channelCoversCountry(c, filters.country)) &&
      (!currency || c.currency === currency) &&
      (!filters.recipient_type || channelAcceptsRecipientType(c, filters.recipient_type)),
  ).map((c) => channelListing(core, caller, c));
}

/**
 * `GET /channels/{channel}/requirements` (spec "ChannelRequirements"): recipient fields and
 * limits of the channel. Throws ApiError 404 not_found (param `channel`) for an unknown id.
 */
export function getChannelRequirements(_core: Core, _caller: Caller, channelId: string): ChannelRequirements {
  const channel = findChannel(channelId);
  if (!channel) throw notFound('channel', channelId, 'channel');
  return { ...requirementsFor(channel), limits: wireLimits(channel) };
}

/** The catalog channel `channelId`, paused or not. Throws ApiError 400 validation_error (param `param`) for an unknown id. */
export function knownChannel(channelId: string, param = 'channel'): ChannelDefinition {
  const channel = typeof channelId === 'string' ? findChannel(channelId) : undefined;
  if (!channel) throw validationError(param, `Unknown channel '${channelId}'; GET /channels lists them`);
  return channel;
}

/** Throws ApiError 400 channel_unavailable (param `param`) when `channel` is paused for `caller` (spec "Errors"). */
export function assertChannelAvailable(core: Core, caller: Caller, channel: ChannelDefinition, param = 'channel'): void {
  if (statusFor(core, caller, channel) === 'paused') {
    const noRate = missingLiveRate(core, caller, channel);
    if (noRate && railStatusFor(core, caller, channel) === 'live') {
      throw rateUnavailable(channel.id, noRate, param);
    }
    const why = caller.environment === 'live' ? livePauseReason(core, channel) : 'it is paused while its rail is degraded';
    throw new ApiError(400, 'channel_unavailable', `Channel ${channel.id} cannot be used now: ${why}`, param);
  }
}

/**
 * The catalog channel `channelId` if `caller` can send on it now: {@link knownChannel} then
 * {@link assertChannelAvailable} (400 validation_error / 400 channel_unavailable, param `param`).
 * For payouts and disbursement items.
 */
export function usableChannel(core: Core, caller: Caller, channelId: string, param = 'channel'): ChannelDefinition {
  const channel = knownChannel(channelId, param);
  assertChannelAvailable(core, caller, channel, param);
  return channel;
}
