/**
 * The rate a price or deposit uses (docs/rates.md): in the sandbox the sandbox's rate source it is
 * handed (`core.sandbox.midRate`, docs/sandbox.md "Adapters"); in live, the rate cache.
 */
import type { ChannelDefinition } from '../../domain/channels';
import { ApiError } from '../../domain/errors';
import type { PriceInput } from '../../domain/pricing';
import type { MissingRate, ResolvedRate } from '../../domain/rate-routes';
import type { Caller, Core } from '../context';
import { depositSpreadBps, liveRate, spreadBps } from './cache';

/** Live: throws {@link rateUnavailable} when no usable rate exists. */
export function pricingRate(core: Core, caller: Caller, channel: ChannelDefinition, param = 'channel'): Pick<PriceInput, 'midRate' | 'live'> {
  if (caller.environment !== 'live') return { midRate: core.sandbox.midRate(channel.currency) };
  const r = liveRate(core, channel.currency);
  if ('missing' in r) throw rateUnavailable(channel.id, r, param);
  return {
    midRate: r.bid,
    live: { referenceRate: r.bidExact, spreadBps: spreadBps(core.config, caller.businessId, channel.id), source: r.source, asOf: r.asOf, usableUntil: r.usableUntil },
  };
}

/** 400 channel_unavailable naming the missing USDC/currency rate and why each source was not used. */
export function rateUnavailable(channelId: string, r: MissingRate, param: string): ApiError {
  return new ApiError(
    400,
    'channel_unavailable',
    `Channel ${channelId} is paused in live: no usable USDC/${r.currency} rate (${r.reasons.join('; ')})`,
    param,
  );
}

export function missingLiveRate(core: Core, caller: Caller, channel: ChannelDefinition): MissingRate | undefined {
  if (caller.environment !== 'live') return undefined;
  const r = liveRate(core, channel.currency);
  return 'missing' in r ? r : undefined;
}

export interface DepositRate {
  rate: string;
  live?: { rate: ResolvedRate; spreadBps: number };
}

/** Sandbox table; live: the ask side plus the deposit spread, undefined without a usable rate. */
export function depositRate(core: Core, environment: Caller['environment'], currency: string): DepositRate | undefined {
  if (environment !== 'live') return { rate: core.sandbox.midRate(currency) };
  const r = liveRate(core, currency);
  if ('missing' in r) return undefined;
  return { rate: r.ask, live: { rate: r, spreadBps: depositSpreadBps(core.config, currency) } };
}
