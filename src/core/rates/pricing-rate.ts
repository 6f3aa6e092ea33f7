/**
 * The rate a price or a deposit uses, by environment (docs/rates.md): the sandbox's fixed table
 * (src/sandbox/fx.ts, reproducible), or in live the rate-source seam through the in-process cache
 * (./cache.ts). This module is the only one outside src/sandbox that imports the sandbox table, and
 * only its sandbox branch reads it (.dependency-cruiser.cjs "live-rates-not-sandbox";
 * test/unit/rates-imports.test.ts).
 */
import type { ChannelDefinition } from '../../domain/channels';
import { ApiError } from '../../domain/errors';
import type { PriceInput } from '../../domain/pricing';
import type { MissingRate, ResolvedRate } from '../../domain/rate-routes';
import { midRate } from '../../sandbox/fx';
import type { Caller, Core } from '../context';
import { depositSpreadBps, liveRate, spreadBps } from './cache';

/** The rate part of a {@link PriceInput} for `channel` and `caller`. Live: throws {@link rateUnavailable} when no usable rate exists. */
export function pricingRate(core: Core, caller: Caller, channel: ChannelDefinition, param = 'channel'): Pick<PriceInput, 'midRate' | 'live'> {
  if (caller.environment !== 'live') return { midRate: midRate(channel.currency) };
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

/** Why live `channel` has no rate now (a MissingRate), or undefined when it has one (sandbox: always undefined). */
export function missingLiveRate(core: Core, caller: Caller, channel: ChannelDefinition): MissingRate | undefined {
  if (caller.environment !== 'live') return undefined;
  const r = liveRate(core, channel.currency);
  return 'missing' in r ? r : undefined;
}

/** A deposit's conversion rate (1 USDC costs `rate` units of `currency`) and, in live, its provenance and spread. */
export interface DepositRate {
  rate: string;
  live?: { rate: ResolvedRate; spreadBps: number };
}

/**
 * The rate a deposit in `currency` converts at: sandbox table; live: the ask side (buying USDC) of
 * the live rate and the deposit spread. Live without a usable rate: undefined (the caller decides).
 */
export function depositRate(core: Core, environment: Caller['environment'], currency: string): DepositRate | undefined {
  if (environment !== 'live') return { rate: midRate(currency) };
  const r = liveRate(core, currency);
  if ('missing' in r) return undefined;
  return { rate: r.ask, live: { rate: r, spreadBps: depositSpreadBps(core.config, currency) } };
}
