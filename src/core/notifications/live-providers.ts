/**
 * The live providers, one per channel kind (docs/notifications.md "Providers"): SMTP, Twilio, WhatsApp
 * Cloud API when configured, else the generic HTTP gateway.
 */
import type { Config } from '../../config';
import { parseDuration } from '../../domain/durations';
import type { Core } from '../context';
import { liveNotificationProvider } from './live-provider';
import type { NotificationProvider } from './provider';
import { domainOf, readDkim, smtpEmailProvider } from './providers/smtp';
import { twilioSmsProvider } from './providers/twilio';
import { parseWhatsAppTemplates, whatsappChatProvider } from './providers/whatsapp';
import type { NotificationChannel } from './templates';

/** `close()` ends pooled connections. */
export interface LiveProviders {
  email: NotificationProvider;
  sms: NotificationProvider;
  whatsapp: NotificationProvider;
  /** A WhatsApp fallback needs SMS configured. */
  smsConfigured: boolean;
  close(): void;
}

const cache = new WeakMap<Config, LiveProviders>();

export const callbackBaseUrl = (config: Config) => (config.NOTIFY_CALLBACK_BASE_URL ?? config.publicUrl).replace(/\/$/, '');

export function buildLiveProviders(config: Config, env: NodeJS.ProcessEnv = process.env): LiveProviders {
  const timeoutMs = parseDuration(config.NOTIFY_PROVIDER_TIMEOUT);
  const gateway = liveNotificationProvider(env);
  const gatewayConfigured = Boolean(env.NOTIFICATIONS_LIVE_URL && env.NOTIFICATIONS_LIVE_TOKEN);
  const closers: (() => void)[] = [];
  let email: NotificationProvider = gateway;
  if (config.NOTIFY_SMTP_URL && config.NOTIFY_EMAIL_FROM) {
    const smtp = smtpEmailProvider({
      url: config.NOTIFY_SMTP_URL,
      poolSize: config.NOTIFY_SMTP_POOL_SIZE,
      from: config.NOTIFY_EMAIL_FROM,
      bounceDomain: config.NOTIFY_EMAIL_BOUNCE_DOMAIN ?? domainOf(config.NOTIFY_EMAIL_FROM),
      dkim: readDkim(config.NOTIFY_DKIM_DOMAIN, config.NOTIFY_DKIM_SELECTOR, config.NOTIFY_DKIM_PRIVATE_KEY_PATH),
      timeoutMs,
    });
    closers.push(() => smtp.close());
    email = smtp;
  }
  const twilioOk = Boolean(config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN && config.TWILIO_FROM);
  const sms = twilioOk
    ? twilioSmsProvider({
        accountSid: config.TWILIO_ACCOUNT_SID as string,
        authToken: config.TWILIO_AUTH_TOKEN as string,
        from: config.TWILIO_FROM as string,
        callbackBaseUrl: callbackBaseUrl(config),
        apiBaseUrl: config.TWILIO_API_BASE_URL,
        timeoutMs,
      })
    : gateway;
  const whatsapp =
    config.WHATSAPP_PHONE_NUMBER_ID && config.WHATSAPP_ACCESS_TOKEN
      ? whatsappChatProvider({
          apiBaseUrl: config.WHATSAPP_API_BASE_URL,
          apiVersion: config.WHATSAPP_API_VERSION,
          phoneNumberId: config.WHATSAPP_PHONE_NUMBER_ID,
          accessToken: config.WHATSAPP_ACCESS_TOKEN,
          templates: parseWhatsAppTemplates(config.WHATSAPP_TEMPLATES),
          timeoutMs,
          lookupGraceMs: parseDuration(config.NOTIFY_WHATSAPP_LOOKUP_GRACE),
        })
      : gateway;
  return { email, sms, whatsapp, smsConfigured: twilioOk || gatewayConfigured, close: () => closers.forEach((c) => c()) };
}

/** Built once per configuration. */
export function liveProvidersOf(core: Core): LiveProviders {
  let p = cache.get(core.config);
  if (!p) {
    p = buildLiveProviders(core.config);
    cache.set(core.config, p);
  }
  return p;
}

export function closeLiveProviders(core: Core): void {
  cache.get(core.config)?.close();
  cache.delete(core.config);
}

export function liveProviderFor(core: Core, channel: NotificationChannel): NotificationProvider {
  return liveProvidersOf(core)[channel];
}
