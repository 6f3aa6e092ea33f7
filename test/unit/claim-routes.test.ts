/**
 * What makes claim_link live (src/core/claim-routes.ts; docs/notifications.md "When claim_link is
 * live"): a configured live rail paying a claim out in its currency and a live provider for the
 * destination's kind or the requested delivery channel; each refusal names the settings to set.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import type { Core } from '../../src/core/context';
import { claimLinkLiveProblem, liveClaimRoutes, liveNotificationChannelProblem, liveNotifierProblem } from '../../src/core/claim-routes';

const ACH = {
  RAIL_ACH_SFTP_HOST: '127.0.0.1',
  RAIL_ACH_SFTP_USER: 'payouts',
  RAIL_ACH_SFTP_KEY_PATH: '/nonexistent/ach-key',
  RAIL_ACH_SFTP_HOST_KEY: `SHA256:${'A'.repeat(43)}`,
  RAIL_ACH_ODFI_ROUTING: '021000021',
  RAIL_ACH_COMPANY_ID: '1234567890',
};
const SMTP = { NOTIFY_SMTP_URL: 'smtp://127.0.0.1:2525', NOTIFY_EMAIL_FROM: 'payouts@example.com' };
const TWILIO = { TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000000', TWILIO_AUTH_TOKEN: 'token', TWILIO_FROM: '+15005550006' };
const WHATSAPP = { WHATSAPP_PHONE_NUMBER_ID: '1234567890', WHATSAPP_ACCESS_TOKEN: 'token' };

/** A core with only a configuration (the paused-channel table is never read successfully: config only). */
const coreWith = (env: Record<string, string>) => ({ db: {}, config: loadConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7233', ...env }) }) as unknown as Core;

describe('claim_link in live', () => {
  it('without a rail to claim to: refused whatever the providers, naming the ACH settings', () => {
    const core = coreWith({ ...SMTP, ...TWILIO });
    expect(liveClaimRoutes(core, 'USD')).toEqual([]);
    expect(claimLinkLiveProblem(core, 'USD', 'email')).toMatch(/^no live rail is configured to pay a claim out in USD \(ach_usd: set RAIL_ACH_SFTP_HOST, .*RAIL_ACH_COMPANY_ID\)$/);
    expect(claimLinkLiveProblem(core, 'USD')).not.toBeNull();
  });

  it('an operator pause of the only route keeps it unavailable, and says so', () => {
    const core = coreWith({ ...ACH, ...SMTP, PAUSED_CHANNELS: 'ach_usd' });
    expect(claimLinkLiveProblem(core, 'USD', 'email')).toBe('no live rail is configured to pay a claim out in USD (ach_usd is paused by the operator)');
  });

  it('with the ACH rail: e-mail needs SMTP, a phone Twilio or WhatsApp; the listing needs either kind', () => {
    const railOnly = coreWith(ACH);
    expect(liveClaimRoutes(railOnly, 'USD').map((c) => c.id)).toEqual(['ach_usd']);
    expect(liveClaimRoutes(railOnly, 'EUR')).toEqual([]);
    expect(claimLinkLiveProblem(railOnly, 'USD', 'email')).toBe('no live e-mail provider is configured (set NOTIFY_SMTP_URL, NOTIFY_EMAIL_FROM)');
    expect(claimLinkLiveProblem(railOnly, 'USD')).toMatch(/e-mail provider.*; no live SMS or WhatsApp provider/);

    const whatsappOnly = coreWith({ ...ACH, ...WHATSAPP });
    expect(claimLinkLiveProblem(whatsappOnly, 'USD', 'phone')).toBeNull();
    expect(claimLinkLiveProblem(whatsappOnly, 'USD', 'email')).not.toBeNull();
    expect(claimLinkLiveProblem(whatsappOnly, 'USD')).toBeNull();
    expect(liveNotificationChannelProblem(whatsappOnly.config, 'sms')).toBe('no live SMS (Twilio) provider is configured (set TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM)');
    expect(liveNotificationChannelProblem(whatsappOnly.config, 'whatsapp')).toBeNull();

    const twilioPartly = coreWith({ ...ACH, TWILIO_ACCOUNT_SID: TWILIO.TWILIO_ACCOUNT_SID });
    expect(liveNotifierProblem(twilioPartly.config, 'phone')).toBe(
      'no live SMS or WhatsApp provider is configured (set TWILIO_AUTH_TOKEN, TWILIO_FROM for Twilio, or WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_ACCESS_TOKEN for WhatsApp)',
    );
    expect(claimLinkLiveProblem(coreWith({ ...ACH, ...SMTP, ...TWILIO }), 'USD', 'phone')).toBeNull();
  });
});
