/**
 * WhatsApp Business Cloud API template messages (docs/notifications.md "Providers"). No lookup API:
 * after an unknown outcome `lookup` waits `lookupGraceMs` for a status webhook, then `not_found`.
 */
import { z } from 'zod';
import { parseDuration } from '../domain/durations';
import { isoDuration } from '../seams/settings';
import { notificationProviderModule } from './module';
import { type ChatProvider, NotificationProviderError, type OutgoingNotification, type SentNotification } from './provider';
import type { NotificationLanguage } from '../domain/notifications';

export const WHATSAPP_PROVIDER = 'whatsapp-cloud';

/** Codes meaning the number cannot receive the template: one SMS instead. */
export const WHATSAPP_CANNOT_RECEIVE = new Set(['131026', '132015', '132016']);
const RETRYABLE = new Set(['130429', '131000', '131016', '4', '80007', '133004']);

export interface WhatsAppTemplate {
  name: string;
  code: string;
}

export interface WhatsAppSettings {
  apiBaseUrl: string;
  apiVersion: string;
  phoneNumberId: string;
  accessToken: string;
  templates: Partial<Record<NotificationLanguage, WhatsAppTemplate>>;
  timeoutMs: number;
  lookupGraceMs: number;
  now?: () => number;
}

/** Parses WHATSAPP_TEMPLATES (`en:name:en_US,es:name:es`). */
export function parseWhatsAppTemplates(spec: string): Partial<Record<NotificationLanguage, WhatsAppTemplate>> {
  const out: Partial<Record<NotificationLanguage, WhatsAppTemplate>> = {};
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [lang, name, code] = part.split(':');
    if (lang && name) out[lang as NotificationLanguage] = { name, code: code || lang };
  }
  return out;
}

export function whatsappTemplateBody(m: OutgoingNotification, t: WhatsAppTemplate): Record<string, unknown> {
  const p = m.templateParams ?? { amount: '', senderName: '' };
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: m.destination.replace(/^\+/, ''),
    type: 'template',
    template: {
      name: t.name,
      language: { code: t.code },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', text: p.amount },
            { type: 'text', text: p.senderName },
            { type: 'text', text: m.claimUrl },
          ],
        },
      ],
    },
    biz_opaque_callback_data: m.reference ?? m.idempotencyKey,
  };
}

export function whatsappChatProvider(s: WhatsAppSettings): ChatProvider {
  const url = `${s.apiBaseUrl.replace(/\/$/, '')}/${s.apiVersion}/${s.phoneNumberId}/messages`;
  const now = s.now ?? Date.now;
  return {
    name: WHATSAPP_PROVIDER,
    channelType: 'chat',
    async send(m: OutgoingNotification): Promise<SentNotification> {
      const t = s.templates[m.language] ?? s.templates.en;
      if (!t) throw new NotificationProviderError(`No WhatsApp template is configured for language ${m.language} (WHATSAPP_TEMPLATES)`, false, 'not_configured');
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${s.accessToken}` },
          body: JSON.stringify(whatsappTemplateBody(m, t)),
          redirect: 'manual',
          signal: AbortSignal.timeout(s.timeoutMs),
        });
      } catch (err) {
        const e = err as Error & { cause?: { code?: string } };
        const refused = e.cause?.code === 'ECONNREFUSED';
        throw new NotificationProviderError(`WhatsApp Cloud API unreachable: ${e.message}`, true, 'unavailable', { outcomeUnknown: !refused });
      }
      const text = await res.text().catch(() => '');
      let json: { messages?: { id?: string }[]; error?: { code?: number; message?: string; error_data?: { details?: string } } } = {};
      try {
        json = JSON.parse(text);
      } catch {
        json = {};
      }
      const id = json.messages?.[0]?.id;
      if (res.ok && id) return { providerMessageId: id, deduplicated: false };
      const code = json.error?.code !== undefined ? String(json.error.code) : `http_${res.status}`;
      const detail = json.error?.error_data?.details ?? json.error?.message ?? text.slice(0, 200);
      if (res.status >= 500 || res.status === 429 || RETRYABLE.has(code)) {
        throw new NotificationProviderError(`WhatsApp Cloud API deferred the message (${code}): ${detail}`, true, 'unavailable', { providerCode: code, outcomeUnknown: res.status >= 500 });
      }
      if (code === '190') throw new NotificationProviderError(`WhatsApp access token refused (${code}): ${detail}`, false, 'not_configured', { providerCode: code });
      throw new NotificationProviderError(`WhatsApp Cloud API refused the message (${code}): ${detail}`, false, 'rejected', { providerCode: code });
    },
    async lookup(_m: OutgoingNotification, attemptedAt: Date) {
      if (now() - attemptedAt.getTime() < s.lookupGraceMs) {
        return { result: 'wait', reason: 'the WhatsApp Cloud API has no message lookup; waiting for a status webhook naming our reference' };
      }
      return { result: 'not_found' };
    },
  };
}

/** The WhatsApp Cloud API module (docs/configuration.md "Notification providers"): chat when the phone number id and token are set. */
export const WHATSAPP_MODULE = notificationProviderModule({
  id: WHATSAPP_PROVIDER,
  channels: ['whatsapp'],
  settings: {
    WHATSAPP_PHONE_NUMBER_ID: z.string().min(1).optional().describe('Cloud API sender phone number id'),
    WHATSAPP_ACCESS_TOKEN: z.string().min(1).optional().describe('Cloud API system-user token'),
    WHATSAPP_APP_SECRET: z.string().min(1).optional().describe('verifies `X-Hub-Signature-256`; unset: `/hooks/whatsapp` answers 403'),
    WHATSAPP_VERIFY_TOKEN: z.string().min(1).optional().describe('the subscription handshake\'s verify token'),
    WHATSAPP_API_BASE_URL: z.string().url().default('https://graph.facebook.com').describe('Graph API address'),
    WHATSAPP_API_VERSION: z.string().regex(/^v\d+\.\d+$/, 'a Graph API version such as v21.0').default('v21.0').describe('Graph API version'),
    WHATSAPP_TEMPLATES: z
      .string()
      .default('en:claim_link_payout:en_US,es:claim_link_payout:es,pt:claim_link_payout:pt_BR')
      .describe('the approved claim template per language: `<language>:<name>:<template language code>`'),
    NOTIFY_WHATSAPP_LOOKUP_GRACE: isoDuration('PT10M')
      .default('PT10M')
      .describe('after an unknown WhatsApp outcome, how long to wait for a status webhook naming our reference before sending again'),
  },
  connect(s, { timeoutMs }) {
    if (!s.WHATSAPP_PHONE_NUMBER_ID || !s.WHATSAPP_ACCESS_TOKEN) return null;
    return whatsappChatProvider({
      apiBaseUrl: s.WHATSAPP_API_BASE_URL,
      apiVersion: s.WHATSAPP_API_VERSION,
      phoneNumberId: s.WHATSAPP_PHONE_NUMBER_ID,
      accessToken: s.WHATSAPP_ACCESS_TOKEN,
      templates: parseWhatsAppTemplates(s.WHATSAPP_TEMPLATES),
      timeoutMs,
      lookupGraceMs: parseDuration(s.NOTIFY_WHATSAPP_LOOKUP_GRACE),
    });
  },
});
