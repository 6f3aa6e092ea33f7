/** The channel catalog as the caller sees it (spec "Channel", "ChannelRequirements"), with paused channels applied. No I/O. */
import { pausedChannels } from './channel-pauses';
import { CLAIM_LINK, claimLinkLiveProblem } from './claim-routes';
import { liveRailWorking } from './rails/rail-adapters';
import { missingLiveRate, rateUnavailable } from './rates/pricing-rate';
import {
  CHANNELS,
  type ChannelDefinition,
  type ChannelListing,
  type ChannelRequirements,
  channelAcceptsRecipientType,
  channelCountries,
  channelCoversCountry,
  channelLimits,
  channelStatus,
  findChannel,
  listedFee,
  type RecipientType,
  requirementsFor,
} from '../domain/channels';
import { ApiError, notFound, validationError } from '../domain/errors';
import type { Caller, Core } from './context';

/** Filters of `GET /channels` (extension), case-insensitive; borderless channels never match a country. */
export interface ChannelFilters {
  country?: string;
  currency?: string;
  recipientType?: RecipientType;
}

/** Spec "Channel".status: paused by the operator, or in live without a working rail or usable live rate (docs/rates.md). */
export function statusFor(core: Core, caller: Caller, channel: ChannelDefinition): 'live' | 'paused' {
  const status = railStatusFor(core, caller, channel);
  if (status === 'live' && missingLiveRate(core, caller, channel)) return 'paused';
  return status;
}

/** {@link statusFor} without the live rate check. */
export function railStatusFor(core: Core, caller: Caller, channel: ChannelDefinition): 'live' | 'paused' {
  const working = (rail: string) => (channel.id === CLAIM_LINK ? claimLinkLiveProblem(core, channel.currency) === null : liveRailWorking(core, rail));
  return channelStatus(channel, caller.environment, pausedChannels(core), working);
}

/**
 * Why live screening fails closed (docs/screening.md "Fail closed"), or null: the listing then shows
 * live channels `paused`, while payouts are still accepted and wait `submitted` until it is back.
 */
export function screeningPauseReason(core: Core, caller: Caller): string | null {
  if (caller.environment !== 'live') return null;
  const s = core.screening.live.status();
  return s.available ? null : `sanctions screening is unavailable (${s.reasons.join('; ')}); payouts are accepted and wait until it is back`;
}

/** A sentence for channel_unavailable messages. */
export function livePauseReason(core: Core, channel: ChannelDefinition): string {
  if (pausedChannels(core).has(channel.id)) return 'the operator paused it';
  if (channel.id === CLAIM_LINK) return claimLinkLiveProblem(core, channel.currency) ?? 'it is paused';
  return 'its rail has no working live connection';
}

/** Spec "Channel" of `channel` for `caller`: status per {@link statusFor}, also paused while live screening fails closed, and why. */
export function channelListing(core: Core, caller: Caller, channel: ChannelDefinition): ChannelListing {
  const statusReason =
    railStatusFor(core, caller, channel) === 'paused'
      ? livePauseReason(core, channel)
      : missingLiveRate(core, caller, channel)
        ? 'no usable live rate for its currency (docs/rates.md)'
        : screeningPauseReason(core, caller);
  return {
    id: channel.id,
    status: statusReason ? 'paused' : 'live',
    statusReason,
    country: channel.country,
    countries: [...channelCountries(channel)],
    currency: channel.currency,
    rail: channel.rail,
    recipientType: channel.recipientType,
    arrival: { min: channel.arrival.min, max: channel.arrival.max },
    limits: channelLimits(channel),
    fee: listedFee(channel),
  };
}

/** `GET /channels`: the catalog in listing order, filtered. */
export function listChannels(core: Core, caller: Caller, filters: ChannelFilters = {}): ChannelListing[] {
  const currency = filters.currency?.toUpperCase();
  return CHANNELS.filter(
    (c) =>
      (!filters.country || channelCoversCountry(c, filters.country)) &&
      (!currency || c.currency === currency) &&
      (!filters.recipientType || channelAcceptsRecipientType(c, filters.recipientType)),
  ).map((c) => channelListing(core, caller, c));
}

/** `GET /channels/{channel}/requirements`; 404 not_found (param `channel`) for an unknown id. */
export function getChannelRequirements(_core: Core, _caller: Caller, channelId: string): ChannelRequirements {
  const channel = findChannel(channelId);
  if (!channel) throw notFound('channel', channelId, 'channel');
  return requirementsFor(channel);
}

/** Throws 400 validation_error (param `param`) for an unknown id. */
export function knownChannel(channelId: string, param = 'channel'): ChannelDefinition {
  const channel = typeof channelId === 'string' ? findChannel(channelId) : undefined;
  if (!channel) throw validationError(param, `Unknown channel '${channelId}'; GET /channels lists them`);
  return channel;
}

/** Throws 400 channel_unavailable (param `param`) when paused for `caller`. */
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

/** {@link knownChannel} then {@link assertChannelAvailable}; for payouts and disbursement items. */
export function usableChannel(core: Core, caller: Caller, channelId: string, param = 'channel'): ChannelDefinition {
  const channel = knownChannel(channelId, param);
  assertChannelAvailable(core, caller, channel, param);
  return channel;
}
