/**
 * Magic destinations of the notification provider doubles (docs/notifications.md "Test doubles"):
 * the outcome is chosen by the destination, as the sandbox's magic values choose a rail's.
 *
 * | destination                         | SMS (Twilio double)                         | WhatsApp (Cloud API double)                         | e-mail (SMTP double)   |
 * |-------------------------------------|---------------------------------------------|-----------------------------------------------------|------------------------|
 * | phone ending `0003` / `undelivered@` | accepted, then `undelivered` ErrorCode 30003 | -                                                   | -                      |
 * | phone ending `1610`                 | refused at once: HTTP 400, code 21610 (unsubscribed) | -                                           | -                      |
 * | phone ending `1026`                 | delivered                                    | accepted, then status `failed` with error 131026    | -                      |
 * | phone ending `2015`                 | delivered                                    | refused at once: code 132015 (template paused)      | -                      |
 * | phone ending `0408` / `timeout@…`    | sent, but the answer comes after the client's timeout | same                                       | accepted, reply delayed past the timeout |
 * | `bounce@…`                          | -                                            | -                                                   | 550 5.1.1 at RCPT      |
 * | `defer@…`                           | -                                            | -                                                   | 451 4.3.0 once, then accepted |
 * | anything else                       | `sent`, then `delivered`                     | `sent`, then `delivered`                            | accepted (250)         |
 */

/** What a double does with one destination. */
export type MagicOutcome = 'delivered' | 'undelivered_30003' | 'failed_21610' | 'whatsapp_131026' | 'template_paused' | 'timeout_sent' | 'bounce' | 'defer';

/** The outcome a phone number asks for. */
export function phoneOutcome(number: string): MagicOutcome {
  const digits = number.replace(/\D/g, '');
  if (digits.endsWith('0003')) return 'undelivered_30003';
  if (digits.endsWith('1610')) return 'failed_21610';
  if (digits.endsWith('1026')) return 'whatsapp_131026';
  if (digits.endsWith('2015')) return 'template_paused';
  if (digits.endsWith('0408')) return 'timeout_sent';
  return 'delivered';
}

/** The outcome an e-mail address asks for. */
export function emailOutcome(address: string): MagicOutcome {
  const local = address.split('@')[0]!.toLowerCase();
  if (local === 'bounce') return 'bounce';
  if (local === 'defer') return 'defer';
  if (local === 'timeout') return 'timeout_sent';
  return 'delivered';
}

/** Example magic destinations (tests and the demo). */
export const MAGIC = {
  smsDelivered: '+525512340001',
  smsUndelivered: '+525512340003',
  smsUnsubscribed: '+525512341610',
  smsTimeout: '+525512340408',
  whatsappDelivered: '+525598760001',
  whatsappNotAUser: '+525598761026',
  whatsappTemplatePaused: '+525598762015',
  whatsappTimeout: '+525598760408',
  emailDelivered: 'ana@example.com',
  emailBounce: 'bounce@example.com',
  emailTimeout: 'timeout@example.com',
} as const;
