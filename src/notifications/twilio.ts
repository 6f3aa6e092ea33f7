/**
 * SMS through Twilio Programmable Messaging (docs/notifications.md "Providers", "Exactly once"). Twilio
 * has no idempotency key: after an unknown outcome `lookup` matches our message among recent Messages
 * to the number by its body (the claim link is unique per payout).
 */
import type Twilio from 'twilio';
import { z } from 'zod';
import { notificationProviderModule } from './module';
import { NotificationProviderError, type OutgoingNotification, type SentNotification, type SmsProvider } from './provider';

export const TWILIO_PROVIDER = 'twilio';

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  /** E.164 sender or Messaging Service SID (`MG…`). */
  from: string;
  callbackBaseUrl: string;
  /** Testing only: called instead of https://api.twilio.com. */
  apiBaseUrl?: string;
  timeoutMs: number;
}

export const twilioStatusCallbackUrl = (callbackBaseUrl: string, reference: string) =>
  `${callbackBaseUrl.replace(/\/$/, '')}/hooks/twilio/status?ref=${encodeURIComponent(reference)}`;

/** A twilio RequestClient; with `baseUrl`, every API call goes to it instead of Twilio's hosts (a Twilio-shaped double). */
function requestClient(twilio: typeof Twilio, timeout: number, baseUrl?: string): Twilio.RequestClient {
  const rc = new twilio.RequestClient({ timeout });
  if (baseUrl) {
    const request = rc.request.bind(rc);
    const base = baseUrl.replace(/\/$/, '');
    rc.request = ((opts: { uri?: string }) => request({ ...opts, uri: String(opts.uri).replace(/^https:\/\/[^/]+/, base) } as never)) as typeof rc.request;
  }
  return rc;
}

/**
 * An SMS provider over one twilio client, made at the first call: the `twilio` package (about
 * 6 MB of heap) is loaded only by a process that sends (docs/operations.md "Idle cost").
 */
export function twilioSmsProvider(s: TwilioSettings): SmsProvider {
  let made: Promise<Twilio.Twilio> | undefined;
  const twilioClient = () =>
    (made ??= import('twilio').then(({ default: twilio }) => twilio(s.accountSid, s.authToken, { httpClient: requestClient(twilio, s.timeoutMs, s.apiBaseUrl) })));
  const sender = s.from.startsWith('MG') ? { messagingServiceSid: s.from } : { from: s.from };
  return {
    name: TWILIO_PROVIDER,
    channelType: 'sms',
    async send(m: OutgoingNotification): Promise<SentNotification> {
      const reference = m.reference ?? m.idempotencyKey;
      try {
        const client = await twilioClient();
        const msg = await client.messages.create({ to: m.destination, body: m.body, statusCallback: twilioStatusCallbackUrl(s.callbackBaseUrl, reference), ...sender });
        return { providerMessageId: msg.sid, deduplicated: false };
      } catch (err) {
        throw toProviderError(err);
      }
    },
    async lookup(m: OutgoingNotification, attemptedAt: Date) {
      let list;
      try {
        list = await (await twilioClient()).messages.list({ to: m.destination, limit: 100 });
      } catch (err) {
        throw toProviderError(err);
      }
      const since = attemptedAt.getTime() - 60_000;
      const mine = list.find((x) => x.body.includes(m.claimUrl) && (x.dateCreated?.getTime() ?? 0) >= since);
      return mine ? { result: 'found', providerMessageId: mine.sid } : { result: 'not_found' };
    },
  };
}

function toProviderError(err: unknown): NotificationProviderError {
  const e = err as { status?: number; code?: number | string; message?: string; moreInfo?: string };
  if (typeof e.status === 'number') {
    const code = e.code !== undefined ? String(e.code) : `http_${e.status}`;
    if (e.status === 429) return new NotificationProviderError(`Twilio is rate limiting (${code}): ${e.message}`, true, 'unavailable', { providerCode: code });
    if (e.status >= 500) return new NotificationProviderError(`Twilio answered HTTP ${e.status}: ${e.message}`, true, 'unavailable', { providerCode: code, outcomeUnknown: true });
    return new NotificationProviderError(`Twilio refused the message (${code}): ${e.message}`, false, 'rejected', { providerCode: code });
  }
  const netCode = typeof e.code === 'string' ? e.code : '';
  const nothingSent = netCode === 'ECONNREFUSED' || netCode === 'ENOTFOUND';
  return new NotificationProviderError(`Twilio unreachable: ${netCode} ${e.message ?? ''}`.trim(), true, 'unavailable', { outcomeUnknown: !nothingSent });
}

/** The Twilio module (docs/configuration.md "Notification providers"): SMS when account, token and sender are set. */
export const TWILIO_MODULE = notificationProviderModule({
  id: TWILIO_PROVIDER,
  channels: ['sms'],
  settings: {
    TWILIO_ACCOUNT_SID: z.string().min(1).optional().describe('Twilio account'),
    TWILIO_AUTH_TOKEN: z.string().min(1).optional().describe('Twilio auth token (also verifies `X-Twilio-Signature`)'),
    TWILIO_FROM: z.string().min(1).optional().describe('Twilio sender (E.164 or a Messaging Service SID `MG…`)'),
    TWILIO_API_BASE_URL: z.string().url().optional().describe('tests and demos only: the Twilio-shaped double; unset: api.twilio.com'),
  },
  connect(s, { timeoutMs, callbackBaseUrl }) {
    if (!s.TWILIO_ACCOUNT_SID || !s.TWILIO_AUTH_TOKEN || !s.TWILIO_FROM) return null;
    return twilioSmsProvider({
      accountSid: s.TWILIO_ACCOUNT_SID,
      authToken: s.TWILIO_AUTH_TOKEN,
      from: s.TWILIO_FROM,
      callbackBaseUrl,
      apiBaseUrl: s.TWILIO_API_BASE_URL,
      timeoutMs,
    });
  },
});
