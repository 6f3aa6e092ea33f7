/**
 * The generic HTTP gateway provider (docs/surface-c.md "Notifications"), for a live channel without
 * its own provider. Incomplete configuration: every send fails `not_configured`, never pretends to send.
 */
import { z } from 'zod';
import { isLoopbackHost } from '../domain/hosts';
import { notificationProviderModule } from './module';
import { type NotificationProvider, NotificationProviderError, type OutgoingNotification, type SentNotification } from './provider';

export const LIVE_HTTP_PROVIDER = 'live-http';
export const LIVE_PROVIDER_TIMEOUT_MS = 10_000;

export interface LiveNotificationConfig {
  url: string;
  token: string;
}

const settings = {
  NOTIFICATIONS_LIVE_URL: z.string().optional().describe('live recipient notifications: an https messaging gateway; unset, a live notification fails clearly'),
  NOTIFICATIONS_LIVE_TOKEN: z.string().optional().describe('the messaging gateway\'s bearer token'),
};

export type HttpGatewaySettings = z.infer<z.ZodObject<typeof settings>>;

/** Reads the settings it is handed; returns `{error}` naming what is missing instead of throwing. */
export function readLiveNotificationConfig(e: Partial<HttpGatewaySettings>): LiveNotificationConfig | { error: string } {
  const url = e.NOTIFICATIONS_LIVE_URL?.trim();
  const token = e.NOTIFICATIONS_LIVE_TOKEN?.trim();
  const missing = [!url && 'NOTIFICATIONS_LIVE_URL', !token && 'NOTIFICATIONS_LIVE_TOKEN'].filter(Boolean);
  if (missing.length) {
    return {
      error: `No live notification provider is configured (set ${missing.join(' and ')}); the notification was not sent`,
    };
  }
  let parsed: URL;
  try {
    parsed = new URL(url as string);
  } catch {
    return { error: 'NOTIFICATIONS_LIVE_URL is not a URL; the notification was not sent' };
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname))) {
    return { error: 'NOTIFICATIONS_LIVE_URL must use https; the notification was not sent' };
  }
  return { url: parsed.toString(), token: token as string };
}

/** Always returns a provider; incomplete configuration makes `send` throw `not_configured` (not retryable). */
export function liveNotificationProvider(s: Partial<HttpGatewaySettings>): NotificationProvider {
  const config = readLiveNotificationConfig(s);
  return {
    name: LIVE_HTTP_PROVIDER,
    async send(m: OutgoingNotification): Promise<SentNotification> {
      if ('error' in config) throw new NotificationProviderError(config.error, false, 'not_configured');
      let res: Response;
      try {
        res = await fetch(config.url, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Authorization: `Bearer ${config.token}`,
            'Idempotency-Key': m.idempotencyKey,
          },
          body: JSON.stringify({ id: m.idempotencyKey, channel: m.channel, to: m.destination, language: m.language, subject: m.subject, body: m.body }),
          redirect: 'manual',
          signal: AbortSignal.timeout(LIVE_PROVIDER_TIMEOUT_MS),
        });
      } catch (err) {
        throw new NotificationProviderError(`Notification gateway unreachable: ${(err as Error).message}`, true, 'unavailable');
      }
      const text = await res.text().catch(() => '');
      if (res.status >= 200 && res.status <= 299) {
        let id: unknown;
        try {
          id = (JSON.parse(text) as { id?: unknown }).id;
        } catch {
          id = undefined;
        }
        return { providerMessageId: typeof id === 'string' && id ? id : m.idempotencyKey, deduplicated: false };
      }
      const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
      throw new NotificationProviderError(
        `Notification gateway answered HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`,
        retryable,
        retryable ? 'unavailable' : 'rejected',
      );
    },
  };
}

/** The generic HTTP gateway: every channel, always connects (incomplete settings fail each send `not_configured`). */
export const HTTP_GATEWAY_MODULE = notificationProviderModule({
  id: LIVE_HTTP_PROVIDER,
  channels: ['email', 'sms', 'whatsapp'],
  gateway: true,
  settings,
  connect: (s) => liveNotificationProvider(s),
});

export const httpGatewayConfigured = (s: Partial<HttpGatewaySettings>) => Boolean(s.NOTIFICATIONS_LIVE_URL && s.NOTIFICATIONS_LIVE_TOKEN);
