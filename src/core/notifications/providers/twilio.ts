/**
 * SMS through Twilio's Programmable Messaging API with the official `twilio` package
 * (docs/notifications.md "SMS"). `Messages.create` with `To`, `From` (or `MessagingServiceSid`),
 * `Body` and `StatusCallback = <callback base>/hooks/twilio/status?ref=<our reference>`.
 *
 * Twilio documents no idempotency key for message creation. After an unknown outcome (a timeout, a
 * 5xx, a process that died mid-call) {@link SmsProvider.lookup} lists the Messages to the same
 * number (newest first, up to 100) and matches ours by its body, which carries the payout's claim
 * link (unique per payout) and was created no earlier than a minute before the attempt began.
 *
 * Errors: a RestException 4xx (other than 429) is a refusal with Twilio's error code kept
 * (`21610` unsubscribed recipient, `21211` invalid number); 429 and 5xx are retryable, a 5xx with
 * an unknown outcome; connection refused is retryable with nothing sent; a timeout or reset
 * connection is retryable with an unknown outcome.
 */
import type Twilio from 'twilio';
import { NotificationProviderError, type OutgoingNotification, type SentNotification, type SmsProvider } from '../provider';

/** Provider name stored on SMS sent through Twilio. */
export const TWILIO_PROVIDER = 'twilio';

/** Settings of {@link twilioSmsProvider}. */
export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  /** E.164 sender or Messaging Service SID (`MG…`). */
  from: string;
  /** Base URL of our /hooks routes as Twilio reaches them. */
  callbackBaseUrl: string;
  /** Testing only: the base URL to call instead of https://api.twilio.com. */
  apiBaseUrl?: string;
  timeoutMs: number;
}

/** The StatusCallback URL of our message `reference`. */
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
