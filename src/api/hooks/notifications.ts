/**
 * Notification provider webhooks (docs/notifications.md "Delivery status" lists the routes and
 * signatures): a bad signature answers 403 and changes nothing; a replay answers 200 and changes
 * nothing. The signed URL is NOTIFY_CALLBACK_BASE_URL + path + query, never the Host header.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { applyProviderStatus, applyTwilioInbound, callbackDigest, claimCallback, twilioStatus, whatsappStatus } from '../../core/notifications/callbacks';
import { callbackBaseUrl } from '../../core/notifications/live-providers';
import { notificationCallbacks } from '../../core/notifications/metrics';
import { TWILIO_PROVIDER } from '../../notifications/twilio';
import { WHATSAPP_PROVIDER } from '../../notifications/whatsapp';
import type { AppEnv } from '../types';

const forbidden = (c: Context<AppEnv>, provider: string, why: string) => {
  notificationCallbacks.inc({ provider, outcome: 'bad_signature' });
  return c.json({ error: why }, 403);
};

/** Form parameters of a raw urlencoded body (last value wins). */
function formParams(raw: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(raw).entries());
}

/** Checks X-Twilio-Signature of a request; returns its params, or null when it is not Twilio's. */
async function twilioVerified(c: Context<AppEnv>): Promise<{ params: Record<string, string>; url: string; raw: string } | null> {
  const core = c.get('core');
  const token = core.config.TWILIO_AUTH_TOKEN;
  const signature = c.req.header('x-twilio-signature');
  if (!token || !signature) return null;
  const raw = await c.req.text();
  const u = new URL(c.req.url);
  const url = `${callbackBaseUrl(core.config)}${u.pathname}${u.search}`;
  const params = formParams(raw);
  const { default: twilio } = await import('twilio');
  return twilio.validateRequest(token, signature, url, params) ? { params, url, raw } : null;
}

export function registerNotificationHooks(app: Hono<AppEnv>): void {
  app.post('/hooks/twilio/status', async (c) => {
    const core = c.get('core');
    const v = await twilioVerified(c);
    if (!v) return forbidden(c, TWILIO_PROVIDER, 'invalid or missing X-Twilio-Signature');
    if (!(await claimCallback(core, TWILIO_PROVIDER, callbackDigest(TWILIO_PROVIDER, v.url, v.raw)))) {
      notificationCallbacks.inc({ provider: TWILIO_PROVIDER, outcome: 'replay' });
      return c.json({ received: true, replay: true });
    }
    const p = v.params;
    const status = p.MessageStatus ?? p.SmsStatus ?? '';
    const outcome = await applyProviderStatus(core, {
      provider: TWILIO_PROVIDER,
      providerMessageId: p.MessageSid ?? p.SmsSid ?? null,
      reference: new URL(c.req.url).searchParams.get('ref'),
      providerStatus: status,
      status: twilioStatus(status),
      failureCode: p.ErrorCode || null,
      error: p.ErrorCode ? `Twilio reported the message ${status} (error ${p.ErrorCode})` : null,
    });
    return c.json({ received: true, outcome });
  });

  app.post('/hooks/twilio/inbound', async (c) => {
    const core = c.get('core');
    const v = await twilioVerified(c);
    if (!v) return forbidden(c, TWILIO_PROVIDER, 'invalid or missing X-Twilio-Signature');
    if (!(await claimCallback(core, TWILIO_PROVIDER, callbackDigest(TWILIO_PROVIDER, v.url, v.raw)))) {
      notificationCallbacks.inc({ provider: TWILIO_PROVIDER, outcome: 'replay' });
    } else if (v.params.From) {
      await applyTwilioInbound(core, { from: v.params.From, body: v.params.Body ?? '', optOutType: v.params.OptOutType ?? null });
    }
    // An empty TwiML answer: we send no reply of our own (Twilio answers STOP itself).
    return c.body('<?xml version="1.0" encoding="UTF-8"?><Response></Response>', 200, { 'Content-Type': 'text/xml' });
  });

  app.get('/hooks/whatsapp', (c) => {
    const core = c.get('core');
    const expected = core.config.WHATSAPP_VERIFY_TOKEN;
    const mode = c.req.query('hub.mode');
    const token = c.req.query('hub.verify_token') ?? '';
    const challenge = c.req.query('hub.challenge') ?? '';
    if (!expected || mode !== 'subscribe' || !safeEqual(token, expected)) return forbidden(c, WHATSAPP_PROVIDER, 'verification failed');
    return c.text(challenge, 200);
  });

  app.post('/hooks/whatsapp', async (c) => {
    const core = c.get('core');
    const secret = core.config.WHATSAPP_APP_SECRET;
    const header = c.req.header('x-hub-signature-256') ?? '';
    const raw = await c.req.text();
    if (!secret || !header.startsWith('sha256=')) return forbidden(c, WHATSAPP_PROVIDER, 'invalid or missing X-Hub-Signature-256');
    const expected = createHmac('sha256', secret).update(raw, 'utf8').digest('hex');
    if (!safeEqual(header.slice('sha256='.length), expected)) return forbidden(c, WHATSAPP_PROVIDER, 'invalid or missing X-Hub-Signature-256');
    if (!(await claimCallback(core, WHATSAPP_PROVIDER, callbackDigest(WHATSAPP_PROVIDER, '/hooks/whatsapp', raw)))) {
      notificationCallbacks.inc({ provider: WHATSAPP_PROVIDER, outcome: 'replay' });
      return c.json({ received: true, replay: true });
    }
    let body: WhatsAppWebhook;
    try {
      body = JSON.parse(raw) as WhatsAppWebhook;
    } catch {
      notificationCallbacks.inc({ provider: WHATSAPP_PROVIDER, outcome: 'ignored' });
      return c.json({ received: true });
    }
    const outcomes: string[] = [];
    for (const entry of body.entry ?? []) {
      for (const change of entry.changes ?? []) {
        for (const st of change.value?.statuses ?? []) {
          const err = st.errors?.[0];
          outcomes.push(
            await applyProviderStatus(core, {
              provider: WHATSAPP_PROVIDER,
              providerMessageId: st.id ?? null,
              reference: st.biz_opaque_callback_data ?? null,
              providerStatus: st.status ?? '',
              status: whatsappStatus(st.status ?? ''),
              failureCode: err?.code !== undefined ? String(err.code) : null,
              error: err ? `WhatsApp reported the message failed (${err.code}): ${err.error_data?.details ?? err.title ?? err.message ?? ''}`.trim() : null,
            }),
          );
        }
      }
    }
    return c.json({ received: true, outcomes });
  });
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

interface WhatsAppWebhook {
  object?: string;
  entry?: {
    id?: string;
    changes?: {
      field?: string;
      value?: {
        statuses?: {
          id?: string;
          status?: string;
          timestamp?: string;
          recipient_id?: string;
          biz_opaque_callback_data?: string;
          errors?: { code?: number; title?: string; message?: string; error_data?: { details?: string } }[];
        }[];
      };
    }[];
  }[];
}
