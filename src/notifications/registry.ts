/** The notification provider registry (docs/notifications.md "The seam"). */
import { HTTP_GATEWAY_MODULE } from './http-gateway';
import { SMTP_MODULE } from './smtp';
import { TWILIO_MODULE } from './twilio';
import { WHATSAPP_MODULE } from './whatsapp';

/** In order of preference per channel; the generic gateway last. */
export const NOTIFICATION_PROVIDERS = [SMTP_MODULE, TWILIO_MODULE, WHATSAPP_MODULE, HTTP_GATEWAY_MODULE] as const;
