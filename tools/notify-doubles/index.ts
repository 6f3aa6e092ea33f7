/**
 * The notification provider doubles together (docs/notifications.md "Test doubles"): the SMTP
 * server, the Twilio-shaped API and the Cloud-API-shaped server, a DKIM key pair, and the
 * environment that points the service at them (`env`). `hooksBaseUrl` is where the doubles reach
 * our /hooks routes. Everything exchanged goes under `dir` when given.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type SmtpDouble, startSmtpDouble } from './smtp';
import { startTwilioDouble, type TwilioDouble, type TwilioFaults } from './twilio';
import { startWhatsAppDouble, type WhatsAppDouble, type WhatsAppFaults } from './whatsapp';

export { MAGIC, phoneOutcome, emailOutcome } from './magic';
export { twilioSignature } from './twilio';
export { hubSignature } from './whatsapp';

/** The running doubles. */
export interface NotifyDoubles {
  smtp: SmtpDouble;
  twilio: TwilioDouble;
  whatsapp: WhatsAppDouble;
  /** The DKIM public key (PEM) and its DNS TXT record value. */
  dkim: { domain: string; selector: string; publicKeyPem: string; txt: string };
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts the three doubles; `delayMs` is how long a magic timeout holds its answer (past NOTIFY_PROVIDER_TIMEOUT). */
export async function startNotifyDoubles(opts: {
  dir: string;
  hooksBaseUrl: string;
  delayMs?: number;
  callbackDelayMs?: number;
  providerTimeout?: string;
  twilioFaults?: TwilioFaults;
  whatsappFaults?: WhatsAppFaults;
}): Promise<NotifyDoubles> {
  mkdirSync(opts.dir, { recursive: true });
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const domain = 'payouts.example.com';
  const selector = 'claim2026';
  const keyPath = join(opts.dir, 'dkim-private.pem');
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  writeFileSync(keyPath, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), { mode: 0o600 });
  const txt = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
  writeFileSync(join(opts.dir, 'dkim-public.pem'), publicKeyPem);
  writeFileSync(join(opts.dir, 'dkim-dns.txt'), `${selector}._domainkey.${domain}. IN TXT "${txt}"\n`);
  const smtp = await startSmtpDouble({ dir: opts.dir, delayMs: opts.delayMs });
  const twilio = await startTwilioDouble({ dir: opts.dir, delayMs: opts.delayMs, callbackDelayMs: opts.callbackDelayMs, faults: opts.twilioFaults });
  const whatsapp = await startWhatsAppDouble({ dir: opts.dir, delayMs: opts.delayMs, callbackDelayMs: opts.callbackDelayMs, faults: opts.whatsappFaults });
  whatsapp.webhookUrl = `${opts.hooksBaseUrl.replace(/\/$/, '')}/hooks/whatsapp`;
  const env: Record<string, string> = {
    NOTIFY_SMTP_URL: smtp.url,
    NOTIFY_EMAIL_FROM: `Payouts <payouts@${domain}>`,
    NOTIFY_EMAIL_BOUNCE_DOMAIN: `bounces.${domain}`,
    NOTIFY_DKIM_DOMAIN: domain,
    NOTIFY_DKIM_SELECTOR: selector,
    NOTIFY_DKIM_PRIVATE_KEY_PATH: keyPath,
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_FROM: twilio.from,
    TWILIO_API_BASE_URL: twilio.url,
    WHATSAPP_PHONE_NUMBER_ID: whatsapp.phoneNumberId,
    WHATSAPP_ACCESS_TOKEN: whatsapp.accessToken,
    WHATSAPP_APP_SECRET: whatsapp.appSecret,
    WHATSAPP_VERIFY_TOKEN: whatsapp.verifyToken,
    WHATSAPP_API_BASE_URL: whatsapp.url,
    WHATSAPP_API_VERSION: whatsapp.apiVersion,
    NOTIFY_CALLBACK_BASE_URL: opts.hooksBaseUrl,
    NOTIFY_PROVIDER_TIMEOUT: opts.providerTimeout ?? 'PT2S',
  };
  return {
    smtp,
    twilio,
    whatsapp,
    dkim: { domain, selector, publicKeyPem, txt },
    env,
    async stop() {
      await Promise.all([smtp.stop(), twilio.stop(), whatsapp.stop()]);
    },
  };
}
