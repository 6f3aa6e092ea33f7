/**
 * The notification provider registry (docs/notifications.md "The seam"): per channel, the first
 * module whose settings are complete sends; the generic HTTP gateway comes last. Adding a provider
 * is its module and one line here.
 */
import { HTTP_GATEWAY_MODULE } from './http-gateway';
import { SMTP_MODULE } from './smtp';
import { TWILIO_MODULE } from './twilio';
import { WHATSAPP_MODULE } from './whatsapp';

/** Every notification provider module, in order of preference per channel. */
export const NOTIFICATION_PROVIDERS = [SMTP_MODULE, TWILIO_MODULE, WHATSAPP_MODULE, HTTP_GATEWAY_MODULE] as const;
