/**
 * Recipient notification templates (docs/surface-c.md): the message a claim-link
 * recipient gets, in English, Spanish or Portuguese, carrying the amount, the sender's (business)
 * name and the claim link. Pure: no I/O.
 *
 * Language fallback (documented in docs/surface-c.md), first match wins:
 * 1. `notification.language` as given, reduced to its primary subtag and lower-cased
 *    (`es-MX`, `ES`, `pt_BR` -> `es`, `es`, `pt`), if it is one of {@link NOTIFICATION_LANGUAGES};
 * 2. the language of the recipient's country (phone number's country, else the recipient's
 *    `country`): Spanish-speaking countries -> `es`, Portuguese-speaking -> `pt`;
 * 3. English (`en`).
 * A language we do not have is therefore never an error: the message goes out in the best one.
 */

import { NOTIFICATION_LANGUAGES, type NotificationChannel, type NotificationLanguage } from '../../domain/notifications';

export { NOTIFICATION_CHANNELS, NOTIFICATION_LANGUAGES, type NotificationChannel, type NotificationLanguage } from '../../domain/notifications';

/** ISO 3166-1 alpha-2 countries whose usual language is Spanish. */
const SPANISH_COUNTRIES = new Set([
  'AR', 'BO', 'CL', 'CO', 'CR', 'CU', 'DO', 'EC', 'ES', 'GQ', 'GT', 'HN', 'MX', 'NI', 'PA', 'PE', 'PR', 'PY', 'SV', 'UY', 'VE',
]);
/** ISO 3166-1 alpha-2 countries whose usual language is Portuguese. */
const PORTUGUESE_COUNTRIES = new Set(['AO', 'BR', 'CV', 'GW', 'MZ', 'PT', 'ST', 'TL']);

/**
 * The template language for a requested language tag and the recipient's country (ISO 3166-1
 * alpha-2, optional), following the fallback in the file header. Never throws.
 */
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

/**
 * Formats a decimal amount string (`"1250.5"`, `"25.00"`) for a language without floating point:
 * thousands grouped and the decimal mark of the language (en `1,250.50`; es and pt `1.250,50`).
 * The fraction is kept as given, padded to 2 digits.
 */
export function formatAmountFor(amount: string, language: NotificationLanguage): string {
  const [int, frac = ''] = amount.split('.');
  const [group, decimal] = language === 'en' ? [',', '.'] : ['.', ','];
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  return `${grouped}${decimal}${frac.padEnd(2, '0')}`;
}

/** What a message is about. */
export interface NotificationContent {
  /** Decimal string in `currency`, e.g. "25.00". */
  amount: string;
  /** ISO 4217 (or USDC). */
  currency: string;
  /** The sender: the paying business's name. */
  senderName: string;
  /** The claim link (`{PUBLIC_URL}/c/<token>`). */
  claimUrl: string;
  /** When the claim link expires (the date is shown as YYYY-MM-DD, UTC), if known. */
  expiresAt?: Date | null;
}

/** A rendered message: `subject` only for e-mail. */
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

/**
 * Renders the notification in `language` for `channel`: e-mail gets a subject, WhatsApp and SMS a
 * body only. The amount is formatted for the language and followed by the currency code
 * (`25,00 USD`).
 */
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

/**
 * A destination as shown in responses (docs/surface-c.md: `destination (masked)`): a phone number keeps
 * its first 3 and last 4 characters (`+52•••••5678`); an e-mail its first character and the
 * domain (`a•••@example.com`).
 */
export function maskDestination(destination: string): string {
  const at = destination.lastIndexOf('@');
  if (at > 0) return `${destination[0]}•••${destination.slice(at)}`;
  if (destination.length <= 7) return `${destination.slice(0, 1)}•••`;
  return `${destination.slice(0, 3)}${'•'.repeat(destination.length - 7)}${destination.slice(-4)}`;
}

/**
 * `text` with every phone number (7 to 15 digits, optionally after `+`) and e-mail address in it
 * masked like {@link maskDestination}: for provider error texts, which may quote the destination
 * (Twilio's 21211 "The 'To' number +52… is not a valid phone number", an SMTP reply naming the
 * rejected address), before they reach a log line or a stored error.
 */
export function maskDestinationsIn(text: string): string {
  return text
    .replace(/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, (m) => maskDestination(m))
    .replace(/\+?\d{7,15}\b/g, (m) => maskDestination(m));
}
