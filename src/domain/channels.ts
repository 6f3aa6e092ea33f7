/**
 * The channel catalog (spec "Channel", "ChannelRequirements") and what derives from it: status,
 * the caller's listed fee and the requirements resource. Pure data and functions, no I/O, so
 * workflows may import it.
 *
 * Units: limits, flat fees are USDC decimal strings; percentages are decimal strings ("0.5" means
 * 0.5 %); arrival times are ISO 8601 durations ("PT5M", "P1D", "P30D").
 *
 * Country conventions:
 * - `country` is an ISO 3166-1 alpha-2 code for single-country channels.
 * - `null` for channels that have no country at all: `claim_link` (the spec's example), and the
 *   borderless `stellar_usdc` wallet and `service_user_usdc` channels (an on-chain address or a
 *   user of the service has no country either).
 * - `sepa_eur` covers every euro-area country; its `country` is "EU" (the ISO 3166-1 exceptionally
 *   reserved code for the European Union) and the countries it reaches are in `coverage`. Use
 *   {@link channelCoversCountry} rather than comparing `country` directly.
 */

import { CHANNELS } from './channel-catalog';
import type { ChannelDefinition, RecipientType, RequirementField } from './channel-fields';

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

/** The catalog entry with this id, or undefined. */
export function findChannel(id: string): ChannelDefinition | undefined {
  return BY_ID.get(id);
}

/**
 * Whether `channel` can pay a recipient of `type`: claim_link takes phone and email, every other
 * channel exactly its recipient_type.
 */
export function channelAcceptsRecipientType(channel: ChannelDefinition, type: RecipientType): boolean {
  if (channel.id === 'claim_link') return type === 'phone' || type === 'email';
  return type === channel.recipient_type;
}

/** Countries a channel reaches: its `coverage`, else its single `country`, else none. */
export function channelCountries(channel: ChannelDefinition): readonly string[] {
  return channel.coverage ?? (channel.country ? [channel.country] : []);
}

/** Whether `channel` pays out in `country` (ISO 3166-1 alpha-2; "EU" matches sepa_eur itself). */
export function channelCoversCountry(channel: ChannelDefinition, country: string): boolean {
  const c = country.toUpperCase();
  return channel.country === c || channelCountries(channel).includes(c);
}

/**
 * Spec "Channel".status (docs/rails.md "Channel status"). Sandbox: 'paused' when an operator
 * paused it (`pausedIds`, PAUSED_CHANNELS), else 'live'. Live: 'live' only when the channel's rail
 * has a configured connection that works (`liveRailWorking(rail)`, the rail registry's answer) and
 * the channel is not in `pausedIds`; else 'paused'.
 */
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

/** Exact sum of non-negative decimal strings ("0.3" + "0.35" = "0.65"). */
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

/** Formats a USDC decimal string with 2 to 6 decimals ("0.25" -> "0.25", "0" -> "0.00"). */
function usdc(value: string): string {
  const [int, frac = ''] = value.split('.');
  return `${BigInt(int)}.${frac.replace(/0+$/, '').padEnd(2, '0')}`;
}

/**
 * The caller's fee as listed on the channel (spec "Channel".fee): percent = provider % + service %
 * + FX spread % (exact decimal string, e.g. "1.15"), flat = provider flat + service flat (USDC
 * Amount, e.g. "0.25"). pricing.ts `price` charges exactly these components on a quote.
 */
export function listedFee(channel: ChannelDefinition): { percent: string; flat: string; currency: 'USDC' } {
  return {
    percent: addDecimals(channel.provider_fee.percent, channel.service_fee.percent, channel.fx_spread_percent),
    flat: usdc(addDecimals(channel.provider_fee.flat, channel.service_fee.flat)),
    currency: 'USDC',
  };
}

/** A requirement as it goes on the wire (the internal `check` removed). */
export type WireRequirementField = Omit<RequirementField, 'check'>;

/** Spec "ChannelRequirements". */
export interface ChannelRequirements {
  channel: string;
  recipient_type: RecipientType;
  fields: WireRequirementField[];
  limits: { min: string; max: string; currency: 'USDC' };
}

/**
 * The spec's ChannelRequirements resource for `channel`: its id, recipient_type, fields (name,
 * type, required, pattern?, values?, description?) and limits (USDC Amounts as in the catalog).
 */
export function requirementsFor(channel: ChannelDefinition): ChannelRequirements {
  return {
    channel: channel.id,
    recipient_type: channel.recipient_type,
    fields: channel.requirements.map(({ check: _check, ...wire }) => ({
      ...wire,
      ...(wire.values ? { values: [...wire.values] } : {}),
    })),
    limits: { ...channel.limits },
  };
}
