/**
 * E-mail over SMTP through nodemailer (docs/notifications.md "Providers", "Exactly once"): DKIM, our
 * own Message-ID and return path per message. SMTP has no lookup: `lookup` answers `unknowable`.
 */
import { readFileSync } from 'node:fs';
import type { Transporter } from 'nodemailer';
import { z } from 'zod';
import { notificationProviderModule } from './module';
import { type EmailProvider, NotificationProviderError, type OutgoingNotification, type SentNotification } from './provider';

export const SMTP_PROVIDER = 'smtp';

export interface SmtpSettings {
  url: string;
  poolSize: number;
  from: string;
  bounceDomain: string;
  dkim?: { domainName: string; keySelector: string; privateKey: string };
  /** Socket / greeting timeout, ms. */
  timeoutMs: number;
}

export function domainOf(address: string): string {
  const m = /@([^>\s]+)>?\s*$/.exec(address);
  return m ? m[1] : 'localhost';
}

/** Undefined when domain, selector or path is missing. */
export function readDkim(domain?: string, selector?: string, keyPath?: string): SmtpSettings['dkim'] {
  if (!domain || !selector || !keyPath) return undefined;
  return { domainName: domain, keySelector: selector, privateKey: readFileSync(keyPath, 'utf8') };
}

export const messageIdOf = (reference: string, domain: string) => `<${reference}@${domain}>`;
export const returnPathOf = (reference: string, domain: string) => `bounce+${reference}@${domain}`;

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
}

/**
 * An e-mail provider over one pooled nodemailer SMTP transport, made at the first send: nodemailer
 * is loaded only by a process that sends (docs/operations.md "Idle cost"). `close()` ends the pool.
 */
export function smtpEmailProvider(s: SmtpSettings): EmailProvider & { close(): void } {
  const u = new URL(s.url);
  let made: Promise<Transporter> | undefined;
  const smtpTransport = () => (made ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport({
    host: u.hostname,
    port: Number(u.port || (u.protocol === 'smtps:' ? 465 : 587)),
    secure: u.protocol === 'smtps:',
    auth: u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : undefined,
    pool: true,
    maxConnections: s.poolSize,
    connectionTimeout: s.timeoutMs,
    greetingTimeout: s.timeoutMs,
    socketTimeout: s.timeoutMs,
    // A loopback test server has no certificate worth checking.
    tls: ['127.0.0.1', 'localhost', '::1'].includes(u.hostname) ? { rejectUnauthorized: false } : undefined,
    ...(s.dkim ? { dkim: s.dkim } : {}),
  })));
  return {
    name: SMTP_PROVIDER,
    channelType: 'email',
    close: () => void made?.then((t) => t.close()),
    async send(m: OutgoingNotification): Promise<SentNotification> {
      const reference = m.reference ?? m.idempotencyKey;
      const messageId = messageIdOf(reference, s.bounceDomain);
      try {
        const transport = await smtpTransport();
        await transport.sendMail({
          from: s.from,
          to: m.destination,
          subject: m.subject ?? '',
          text: m.body,
          messageId,
          envelope: { from: returnPathOf(reference, s.bounceDomain), to: [m.destination] },
          headers: { 'X-Payout-Notification': m.idempotencyKey },
        });
      } catch (err) {
        const e = err as SmtpError;
        if (typeof e.responseCode === 'number') {
          const code = `smtp_${e.responseCode}`;
          const reply = (e.response ?? e.message).slice(0, 300);
          if (e.responseCode >= 500) throw new NotificationProviderError(`The SMTP server refused the message: ${reply}`, false, 'rejected', { providerCode: code });
          throw new NotificationProviderError(`The SMTP server deferred the message: ${reply}`, true, 'unavailable', { providerCode: code });
        }
        // Failures before the session sent nothing; a timeout or reset later may come after the server kept it.
        const beforeSession = /Greeting never received|Connection timeout/i.test(e.message) || ['ECONNREFUSED', 'EDNS', 'ETLS', 'EAUTH', 'EENVELOPE'].includes(e.code ?? '');
        const unknown = !beforeSession && ['ETIMEDOUT', 'ECONNRESET', 'ESOCKET', 'EPIPE'].includes(e.code ?? '');
        throw new NotificationProviderError(`SMTP server unreachable: ${e.code ?? ''} ${e.message}`.trim(), true, 'unavailable', { outcomeUnknown: unknown });
      }
      return { providerMessageId: messageId, deduplicated: false };
    },
    async lookup(m: OutgoingNotification) {
      return { result: 'unknowable', providerMessageId: messageIdOf(m.reference ?? m.idempotencyKey, s.bounceDomain), reason: 'SMTP offers no lookup of a sent message; an attempt whose outcome was lost is not repeated (at most once)' };
    },
  };
}

/** The SMTP module (docs/configuration.md "Notification providers"): e-mail when NOTIFY_SMTP_URL and NOTIFY_EMAIL_FROM are set. */
export const SMTP_MODULE = notificationProviderModule({
  id: SMTP_PROVIDER,
  channels: ['email'],
  settings: {
    NOTIFY_SMTP_URL: z.string().url().optional().describe('SMTP submission server (`smtp://user:pass@host:587`, `smtps://…:465`)'),
    NOTIFY_SMTP_POOL_SIZE: z.coerce.number().int().min(1).max(50).default(3).describe('pooled SMTP connections'),
    NOTIFY_EMAIL_FROM: z.string().min(3).optional().describe('From header'),
    NOTIFY_EMAIL_BOUNCE_DOMAIN: z.string().min(1).optional().describe('domain of each message\'s Message-ID and return path `bounce+<nmsg id>@<domain>`; unset: the From domain'),
    NOTIFY_DKIM_DOMAIN: z.string().min(1).optional().describe('DKIM `d=`; unset: not signed'),
    NOTIFY_DKIM_SELECTOR: z.string().min(1).optional().describe('DKIM `s=`; the public key goes to `<selector>._domainkey.<domain>`'),
    NOTIFY_DKIM_PRIVATE_KEY_PATH: z.string().min(1).optional().describe('DKIM RSA private key (PEM file)'),
  },
  connect(s, { timeoutMs }) {
    if (!s.NOTIFY_SMTP_URL || !s.NOTIFY_EMAIL_FROM) return null;
    return smtpEmailProvider({
      url: s.NOTIFY_SMTP_URL,
      poolSize: s.NOTIFY_SMTP_POOL_SIZE,
      from: s.NOTIFY_EMAIL_FROM,
      bounceDomain: s.NOTIFY_EMAIL_BOUNCE_DOMAIN ?? domainOf(s.NOTIFY_EMAIL_FROM),
      dkim: readDkim(s.NOTIFY_DKIM_DOMAIN, s.NOTIFY_DKIM_SELECTOR, s.NOTIFY_DKIM_PRIVATE_KEY_PATH),
      timeoutMs,
    });
  },
});
