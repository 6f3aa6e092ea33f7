/**
 * WhatsApp through the WhatsApp Business Cloud API (docs/notifications.md "WhatsApp"). A
 * business-initiated message outside the 24 h customer-service window must be an approved template,
 * so the claim message is `POST /{version}/{phone number id}/messages` with
 * `{messaging_product: "whatsapp", to, type: "template", template: {name, language: {code},
 * components: [{type: "body", parameters: [amount, sender, claim link]}]}, biz_opaque_callback_data: <our reference>}`.
 * The answer's `messages[0].id` (a wamid) is the provider id; status webhooks carry the wamid and
 * our `biz_opaque_callback_data`.
 *
 * Errors (`{error: {code, message, error_data}}`): 131026 (undeliverable: not a WhatsApp user),
 * 132015 / 132016 (template paused / disabled) and other 4xx answers are refusals with the code
 * kept; 130429, 131000, 131016, 4, 80007, 429 and 5xx are retryable. The Cloud API has no message
 * lookup: after an unknown outcome {@link ChatProvider.lookup} waits `lookupGraceMs` for a status
 * webhook naming our reference (which records the message), then answers `not_found`.
 */
import { type ChatProvider, NotificationProviderError, type OutgoingNotification, type SentNotification } from '../provider';
import type { NotificationLanguage } from '../templates';

/** Provider name stored on WhatsApp messages. */
export const WHATSAPP_PROVIDER = 'whatsapp-cloud';

/** WhatsApp error codes that mean the number cannot receive the template: the recipient gets one SMS instead. */
export const WHATSAPP_CANNOT_RECEIVE = new Set(['131026', '132015', '132016']);
const RETRYABLE = new Set(['130429', '131000', '131016', '4', '80007', '133004']);

/** A claim template: its name and language code as approved. */
export interface WhatsAppTemplate {
  name: string;
  code: string;
}

/** Settings of {@link whatsappChatProvider}. */
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

/** The Cloud API request body of one claim template message. */
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

/** A chat provider over the Cloud API. */
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
