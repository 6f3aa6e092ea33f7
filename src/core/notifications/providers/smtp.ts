/**
 * E-mail over SMTP through nodemailer (docs/notifications.md "E-mail"): pooled connections, DKIM
 * signing with the configured domain, selector and key, and per message our own Message-ID
 * `<nmsg_…@bounce domain>` and envelope return path `bounce+nmsg_…@bounce domain`, so a bounce
 * names the message it belongs to.
 *
 * Answers: 250 -> sent (provider id = our Message-ID); a 4xx reply -> retryable (`smtp_4xx`); a 5xx
 * reply -> refused, not retried, the server's reply kept (`smtp_5xx`); connection refused / greeting
 * failure -> retryable (nothing was sent); a connection lost during DATA -> outcome unknown. SMTP
 * has no way to ask a server whether it accepted a message, so {@link EmailProvider.lookup} answers
 * `unknowable` (the residual risk is documented in docs/notifications.md).
 */
import { readFileSync } from 'node:fs';
import type { Transporter } from 'nodemailer';
import { type EmailProvider, NotificationProviderError, type OutgoingNotification, type SentNotification } from '../provider';

/** Provider name stored on e-mail messages sent over SMTP. */
export const SMTP_PROVIDER = 'smtp';

/** Settings of {@link smtpEmailProvider}. */
export interface SmtpSettings {
  /** `smtp://user:pass@host:port` or `smtps://…`. */
  url: string;
  poolSize: number;
  /** From header, e.g. `Payouts <payouts@example.com>`. */
  from: string;
  /** Domain of Message-IDs and return paths. */
  bounceDomain: string;
  dkim?: { domainName: string; keySelector: string; privateKey: string };
  /** Socket / greeting timeout, ms. */
  timeoutMs: number;
}

/** The domain of an address in `Name <a@b>` or `a@b` form. */
export function domainOf(address: string): string {
  const m = /@([^>\s]+)>?\s*$/.exec(address);
  return m ? m[1] : 'localhost';
}

/** Reads a DKIM private key file; undefined when domain, selector or path is missing. */
export function readDkim(domain?: string, selector?: string, keyPath?: string): SmtpSettings['dkim'] {
  if (!domain || !selector || !keyPath) return undefined;
  return { domainName: domain, keySelector: selector, privateKey: readFileSync(keyPath, 'utf8') };
}

/** The Message-ID of our message `reference`. */
export const messageIdOf = (reference: string, domain: string) => `<${reference}@${domain}>`;
/** The envelope return path (MAIL FROM) of our message `reference`. */
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
    // A loopback test server has no certificate worth checking; a real one is verified.
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
        // No reply. Refused connections, DNS, TLS and greeting / connection timeouts happen before
        // any message was handed over (nothing sent); a socket timeout or reset later in the
        // session (nodemailer reports it as command CONN, message "Timeout") may come after the
        // server kept the message: outcome unknown.
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
