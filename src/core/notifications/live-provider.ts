/**
 * The generic webhook adapter (docs/notifications.md "Providers"; docs/surface-c.md): an HTTP
 * messaging gateway configured by environment variables, used for a live channel whose own provider
 * (SMTP, Twilio, WhatsApp Cloud API: live-providers.ts) is not configured. Without a complete configuration every send fails with a clear, non-retryable
 * `not_configured` error: a live notification never pretends to be sent.
 *
 * | variable                    | meaning                                                                  |
 * |-----------------------------|--------------------------------------------------------------------------|
 * | `NOTIFICATIONS_LIVE_URL`    | https URL of the gateway (http only to a loopback host, for local tests) |
 * | `NOTIFICATIONS_LIVE_TOKEN`  | bearer token sent as `Authorization: Bearer <token>`                     |
 *
 * Request: `POST <url>` with JSON `{id, channel, to, language, subject, body}` (id = notification
 * id) and the header `Idempotency-Key: <notification id>`, so a gateway that honours it delivers a
 * retried call once. A 2xx answer is delivered (`{"id": …}` in the body, if any, is kept as the
 * provider's message id); 408, 429, 5xx, a timeout (10 s) or a network error is retryable; any
 * other status is a refusal (not retried).
 */
import { z } from 'zod';
import { isLoopbackHost } from '../webhooks';
import { type NotificationProvider, NotificationProviderError, type OutgoingNotification, type SentNotification } from './provider';

/** Provider name stored on live notifications. */
export const LIVE_HTTP_PROVIDER = 'live-http';
/** Time a gateway has to answer, in milliseconds. */
export const LIVE_PROVIDER_TIMEOUT_MS = 10_000;

/** The live provider's configuration, read from the environment. */
export interface LiveNotificationConfig {
  url: string;
  token: string;
}

const envSchema = z.object({
  NOTIFICATIONS_LIVE_URL: z.string().optional(),
  NOTIFICATIONS_LIVE_TOKEN: z.string().optional(),
});

/**
 * Reads {@link LiveNotificationConfig} from `env`. Returns `{error}` naming what is missing or
 * wrong (no URL, no token, a URL that is not https) instead of throwing, so the error surfaces on
 * the notification that needed it.
 */
export function readLiveNotificationConfig(env: NodeJS.ProcessEnv = process.env): LiveNotificationConfig | { error: string } {
  const e = envSchema.parse(env);
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

/**
 * The live provider for `env`. Always returns a provider; when the configuration is incomplete its
 * `send` throws NotificationProviderError `not_configured` (not retryable) with the reason.
 */
export function liveNotificationProvider(env: NodeJS.ProcessEnv = process.env): NotificationProvider {
  const config = readLiveNotificationConfig(env);
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
