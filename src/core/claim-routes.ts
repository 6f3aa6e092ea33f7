/** When `claim_link` is usable in live (docs/notifications.md "When claim_link is live"). Configuration only. */
import type { Config } from '../config';
import { CHANNELS, type ChannelDefinition } from '../domain/channels';
import { railModuleOf } from '../rails/registry';
import { pausedChannels } from './channel-pauses';
import type { Core } from './context';
import { liveRailConnection } from './rails/rail-adapters';

export const CLAIM_LINK = 'claim_link';

export type ClaimDestinationKind = 'email' | 'phone';

const unset = (vars: Record<string, unknown>) => Object.entries(vars).filter(([, v]) => !v).map(([k]) => k);

/** Unset variables per live notification provider (empty: configured). */
export function liveNotifierGaps(config: Config): { smtp: string[]; twilio: string[]; whatsapp: string[] } {
  return {
    smtp: unset({ NOTIFY_SMTP_URL: config.NOTIFY_SMTP_URL, NOTIFY_EMAIL_FROM: config.NOTIFY_EMAIL_FROM }),
    twilio: unset({ TWILIO_ACCOUNT_SID: config.TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN: config.TWILIO_AUTH_TOKEN, TWILIO_FROM: config.TWILIO_FROM }),
    whatsapp: unset({ WHATSAPP_PHONE_NUMBER_ID: config.WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_ACCESS_TOKEN: config.WHATSAPP_ACCESS_TOKEN }),
  };
}

/** Why no live provider can notify a `kind` destination, or null. */
export function liveNotifierProblem(config: Config, kind: ClaimDestinationKind): string | null {
  const g = liveNotifierGaps(config);
  if (kind === 'email') return g.smtp.length === 0 ? null : `no live e-mail provider is configured (set ${g.smtp.join(', ')})`;
  if (g.twilio.length === 0 || g.whatsapp.length === 0) return null;
  return `no live SMS or WhatsApp provider is configured (set ${g.twilio.join(', ')} for Twilio, or ${g.whatsapp.join(', ')} for WhatsApp)`;
}

export function liveNotificationChannelProblem(config: Config, channel: 'email' | 'sms' | 'whatsapp'): string | null {
  const g = liveNotifierGaps(config);
  const [gaps, what] = channel === 'email' ? [g.smtp, 'e-mail (SMTP)'] : channel === 'sms' ? [g.twilio, 'SMS (Twilio)'] : [g.whatsapp, 'WhatsApp (Cloud API)'];
  return gaps.length === 0 ? null : `no live ${what} provider is configured (set ${gaps.join(', ')})`;
}

/** Bank channels in `currency` with a configured live rail, not paused, in catalog order. */
export function liveClaimRoutes(core: Core, currency: string): ChannelDefinition[] {
  const paused = pausedChannels(core);
  return CHANNELS.filter(
    (c) => c.id !== CLAIM_LINK && c.currency === currency && c.recipientType === 'bank_account' && !paused.has(c.id) && liveRailConnection(core, c.rail) !== undefined,
  );
}

export function liveClaimRouteProblem(core: Core, currency: string): string | null {
  if (liveClaimRoutes(core, currency).length > 0) return null;
  const candidates = CHANNELS.filter((c) => c.id !== CLAIM_LINK && c.currency === currency && c.recipientType === 'bank_account' && railModuleOf(c.rail));
  const how = candidates
    .map((c) => {
      const missing = railModuleOf(c.rail)!.connect(core.config).missing;
      return missing.length > 0 ? `${c.id}: set ${missing.join(', ')}` : `${c.id} is paused by the operator`;
    })
    .join('; ');
  return `no live rail is configured to pay a claim out in ${currency}${how ? ` (${how})` : ''}`;
}

/** Why a live claim-link payout cannot be accepted now, or null; without `kind`, for any kind. */
export function claimLinkLiveProblem(core: Core, currency: string, kind?: ClaimDestinationKind): string | null {
  const route = liveClaimRouteProblem(core, currency);
  if (route) return route;
  if (kind) return liveNotifierProblem(core.config, kind);
  const email = liveNotifierProblem(core.config, 'email');
  const phone = liveNotifierProblem(core.config, 'phone');
  return email && phone ? `${email}; ${phone}` : null;
}
