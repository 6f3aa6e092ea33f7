/**
 * Surface C, the payout guide (spec "Surface C"; docs/surface-c.md): snake_case, at `/guide/v1` and
 * `/sandbox/guide/v1`; a payout with a delivery channel is a claim-link payout whose recipient is notified.
 */
import { defineSurface, type SurfaceRouter } from '../surface';
import { surfaceCErrors } from './errors';
import { registerPaymentLinkRoutes } from './payment-links';
import { registerPayoutRoutes } from './payouts';
import { registerRecipientRoutes } from './recipients';
import { registerSandboxRoutes } from './sandbox';
import { registerWebhookRoutes } from './webhooks';
import { registerEventRoutes } from '../surface-a/events';
import { registerWebhookDeliveryRoutes } from '../surface-a/webhook-deliveries';

/** Every Surface C resource router (spec "Endpoints", Surface C, plus the sandbox extensions). */
export function registerSurfaceCRoutes(app: SurfaceRouter): void {
  registerRecipientRoutes(app);
  registerPayoutRoutes(app);
  registerPaymentLinkRoutes(app);
  registerWebhookRoutes(app);
  registerWebhookDeliveryRoutes(app, 'C');
  registerEventRoutes(app, 'C');
  registerSandboxRoutes(app);
}

export const surfaceC = defineSurface({
  id: 'C',
  name: 'Surface C',
  liveBase: '/guide/v1',
  sandboxBase: '/sandbox/guide/v1',
  title: 'Payouts API, Surface C (payout guide)',
  description:
    'Recipients by phone or e-mail, payouts that notify the recipient (whatsapp, sms, email) who then chooses how to withdraw on the claim page, ' +
    'batch payouts, payment links and webhook tracking. snake_case; amounts are decimal strings; timestamps ISO 8601 UTC. ' +
    'Errors use Surface A\'s body: {"error": {code, message, param, request_id}}. Writes accept the Idempotency-Key header.',
  errors: surfaceCErrors,
  register: registerSurfaceCRoutes,
});
