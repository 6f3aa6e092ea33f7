/** Claim-link recipient message templates in en/es/pt; language fallback in docs/surface-c.md. Pure. */

import { NOTIFICATION_LANGUAGES, type NotificationChannel, type NotificationLanguage } from '../../domain/notifications';

export { maskDestination, maskDestinationsIn, NOTIFICATION_CHANNELS, NOTIFICATION_LANGUAGES, type NotificationChannel, type NotificationLanguage } from '../../domain/notifications';

const SPANISH_COUNTRIES = new Set([
  'AR', 'BO', 'CL', 'CO', 'CR', 'CU', 'DO', 'EC', 'ES', 'GQ', 'GT', 'HN', 'MX', 'NI', 'PA', 'PE', 'PR', 'PY', 'SV', 'UY', 'VE',
]);
const PORTUGUESE_COUNTRIES = new Set(['AO', 'BR', 'CV', 'GW', 'MZ', 'PT', 'ST', 'TL']);

/** The template language for a requested tag and the recipient's country; never throws. */
export function resolveLanguage(requested: string | null | undefined, country?: string | null): NotificationLanguage {
  if (typeof requested === 'string') {
    const primary = requested.trim().split(/[-_]/)[0]?.toLowerCase();
    if ((NOTIFICATION_LANGUAGES as readonly string[]).includes(primary)) return primary as NotificationLanguage;
  }
  const c = country?.toUpperCase();
  if (c && SPANISH_COUNTRIES.has(c)) return 'es';
  if (c && PORTUGUESE_COUNTRIES.has(c)) return 'pt';
  return 'en';
}

/** A decimal amount string formatted for a language without floating point (en `1,250.50`, es/pt `1.250,50`). */
export function formatAmountFor(amount: string, language: NotificationLanguage): string {
  const [int, frac = ''] = amount.split('.');
  const [group, decimal] = language === 'en' ? [',', '.'] : ['.', ','];
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  return `${grouped}${decimal}${frac.padEnd(2, '0')}`;
}

export interface NotificationContent {
  /** Decimal string in `currency`. */
  amount: string;
  currency: string;
  senderName: string;
  claimUrl: string;
  /** Shown as YYYY-MM-DD, UTC. */
  expiresAt?: Date | null;
}

export interface RenderedNotification {
  language: NotificationLanguage;
  subject: string | null;
  body: string;
}

interface Template {
  subject: (c: Texts) => string;
  body: (c: Texts) => string;
  expires: (date: string) => string;
}
interface Texts {
  amount: string;
  sender: string;
  url: string;
}

const TEMPLATES: Record<NotificationLanguage, Template> = {
  en: {
    subject: (t) => `${t.sender} sent you ${t.amount}`,
    body: (t) => `${t.sender} sent you ${t.amount}. Choose how to receive it here: ${t.url}`,
    expires: (d) => ` The link is valid until ${d}.`,
  },
  es: {
    subject: (t) => `${t.sender} te envió ${t.amount}`,
    body: (t) => `${t.sender} te envió ${t.amount}. Elige cómo recibirlo aquí: ${t.url}`,
    expires: (d) => ` El enlace vence el ${d}.`,
  },
  pt: {
    subject: (t) => `${t.sender} enviou ${t.amount} para você`,
    body: (t) => `${t.sender} enviou ${t.amount} para você. Escolha como receber aqui: ${t.url}`,
    expires: (d) => ` O link vale até ${d}.`,
  },
};

/** Renders the message for `channel` (subject only for e-mail); amount as `25,00 USD`. */
export function renderNotification(language: NotificationLanguage, channel: NotificationChannel, content: NotificationContent): RenderedNotification {
  const t = TEMPLATES[language];
  const texts: Texts = {
    amount: `${formatAmountFor(content.amount, language)} ${content.currency}`,
    sender: content.senderName,
    url: content.claimUrl,
  };
  const expires = content.expiresAt ? t.expires(content.expiresAt.toISOString().slice(0, 10)) : '';
  return { language, subject: channel === 'email' ? t.subject(texts) : null, body: `${t.body(texts)}${expires}` };
}
